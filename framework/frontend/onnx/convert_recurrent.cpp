// LSTM, GRU and RNN as recurrences over time steps: one matmul projects every step's input at
// once (it does not depend on the recurrence), then per direction and step a matmul of the
// previous hidden state with the recurrent weights and the cell's elementwise update. The steps
// are separate ops because each needs the one before; Y, Y_h and Y_c collect the step states.
// Layout 0 is [seq, batch, ...], layout 1 [batch, seq, ...]; every sequence runs the full length
// (sequence_lens and custom activations do not change the count).
#include "framework/frontend/onnx/attributes.hpp"
#include "framework/frontend/onnx/converters.hpp"

namespace tessera::onnx_import {

namespace {

using ir::OpKind;
using Ranks = std::vector<ir::Rank>;

struct Cell {
  int gates;         // G: gate blocks in W and R (LSTM 4, GRU 3, RNN 1)
  int states;        // per step: h (and c for an LSTM)
  const char* fn;    // the cell's point function
  int state_inputs;  // previous states the cell reads besides the gates (LSTM: c; GRU: h)
};

Cell cell_of(const std::string& op) {
  if (op == "LSTM") return {4, 2, "lstm_cell", 1};
  if (op == "GRU") return {3, 1, "gru_cell", 1};
  return {1, 1, "tanh", 0};
}

// Each step of each direction becomes ops of its own (the recurrence and the cell); past this
// many the graph grows without bound in memory and takes longer to plan than any export is worth
// (2^24 steps took more than 7 GB).
constexpr int64_t kMaxUnrolledSteps = 65'536;

struct Recurrence {
  bool batch_first;  // layout 1
  int64_t steps, batch, input, hidden, directions;
  Cell cell;
  std::string gates;  // [T, D, B, G*H]: the input projection of every step
};

// gates[t, dd, b, g] = Σ_i X[t, b, i] W[dd, g, i] + B[dd, g] + B[dd, G*H + g].
void project_inputs(NodeContext& ctx, Recurrence& r) {
  int64_t gh = r.cell.gates * r.hidden;
  r.gates = ctx.temp("gates", {r.steps, r.directions, r.batch, gh}, ctx.dtype(0));
  Ranks ranks{{"t", r.steps}, {"dd", r.directions}, {"b", r.batch}, {"g", gh}, {"i", r.input}};
  std::vector<ir::Operand> in{
      operand(ctx.in(0), r.batch_first ? std::vector{rank("b"), rank("t"), rank("i")}
                                       : std::vector{rank("t"), rank("b"), rank("i")}),
      operand(ctx.in(1), {rank("dd"), rank("g"), rank("i")})};
  if (ctx.has_input(3)) {
    std::string bias = ctx.in(3);
    in.push_back(operand(bias, {rank("dd"), rank("g")}));
    in.push_back(operand(bias, {rank("dd"), affine({{1, "g"}}, gh)}));
  }
  ctx.op(OpKind::matmul, "mac", ranks, std::move(in),
         operand(r.gates, {rank("t"), rank("dd"), rank("b"), rank("g")}), "input_projection");
}

// The state a step starts from: the previous step's, the initial_h/initial_c input, or none.
struct Prev {
  std::string tensor;  // empty: zeros
  std::vector<ir::IndexExpr> h, c;
};

// initial_h and initial_c: [D, B, H] (layout 0) or [B, D, H].
std::vector<ir::IndexExpr> initial_index(const Recurrence& r, int64_t dd) {
  if (r.batch_first) return {rank("b"), constant(dd), rank("h")};
  return {constant(dd), rank("b"), rank("h")};
}

Prev initial_state(NodeContext& ctx, const Recurrence& r, int64_t dd) {
  Prev p;
  if (ctx.has_input(5)) {
    p.tensor = ctx.in(5);
    p.h = initial_index(r, dd);
  }
  return p;
}

// One step: rec[b, g] = Σ_h prev_h[b, h] R[dd, g, h] + gates[t, dd, b, g]; then the cell writes
// state[0, 0, s, b, h] (s: h, and c for an LSTM).
std::string step(NodeContext& ctx, const Recurrence& r, int64_t dd, int64_t s, const Prev& prev,
                 const std::string& c_init) {
  int64_t t =
      dd == 0 && attr_string(ctx.node(), "direction", "forward") != "reverse" ? s : r.steps - 1 - s;
  int64_t gh = r.cell.gates * r.hidden;
  std::string part = std::to_string(dd) + "." + std::to_string(s);
  ir::Operand gates = operand(r.gates, {constant(t), constant(dd), rank("b"), rank("g")});
  std::string pre = r.gates;
  std::vector<ir::IndexExpr> pre_index{constant(t), constant(dd), rank("b")};
  if (!prev.tensor.empty()) {
    pre = ctx.temp("rec." + part, {r.batch, gh}, ctx.dtype(0));
    Ranks ranks{{"b", r.batch}, {"g", gh}, {"h", r.hidden}};
    ctx.op(OpKind::matmul, "mac", ranks,
           {operand(prev.tensor, prev.h), operand(ctx.in(2), {constant(dd), rank("g"), rank("h")}),
            gates},
           operand(pre, {rank("b"), rank("g")}), "recurrence." + part);
    pre_index = {rank("b")};
  }
  Ranks ranks{{"b", r.batch}, {"h", r.hidden}};
  std::vector<ir::Operand> in;
  for (int g = 0; g < r.cell.gates; ++g) {
    auto index = pre_index;
    index.push_back(affine({{1, "h"}}, g * r.hidden));
    in.push_back(operand(pre, index));
  }
  if (r.cell.state_inputs > 0) {
    if (r.cell.states == 2 && !prev.c.empty()) in.push_back(operand(prev.tensor, prev.c));
    if (r.cell.states == 2 && prev.c.empty() && !c_init.empty())
      in.push_back(operand(c_init, initial_index(r, dd)));
    if (r.cell.states == 1 && !prev.tensor.empty()) in.push_back(operand(prev.tensor, prev.h));
  }
  std::string state = ctx.temp("state." + part, {1, 1, r.cell.states, r.batch, r.hidden},
                               ctx.out_dtype(ctx.node().output(0).empty() ? 1 : 0));
  std::vector<ir::IndexExpr> out{constant(0), constant(0), constant(0), rank("b"), rank("h")};
  if (r.cell.states == 2) {
    ranks.insert(ranks.begin(), {"s", 2});
    out[2] = rank("s");
  }
  ctx.op(OpKind::elementwise, r.cell.fn, ranks, std::move(in), operand(state, out), "cell." + part);
  return state;
}

// Output `i` (Y: [T, D, B, H] or [B, T, D, H]; Y_h, Y_c: [D, B, H] or [B, D, H]) copies state
// slot `slot` of the steps that land in it, each at its own time and direction.
void collect(NodeContext& ctx, const Recurrence& r, int i, int64_t slot,
             const std::vector<std::vector<std::string>>& states) {
  if (i >= ctx.node().output_size() || ctx.node().output(i).empty()) return;
  bool sequence = i == 0;
  Ranks ranks{{"dd", r.directions}, {"h", r.hidden}};
  ranks.insert(ranks.begin() + (r.batch_first ? 0 : 1), {"b", r.batch});
  if (sequence) ranks.insert(ranks.begin() + (r.batch_first ? 1 : 0), {"t", r.steps});
  std::vector<ir::Operand> in;
  for (int64_t dd = 0; dd < r.directions; ++dd) {
    bool reverse = dd == 1 || attr_string(ctx.node(), "direction", "forward") == "reverse";
    for (int64_t s = sequence ? 0 : r.steps - 1; s < r.steps; ++s) {
      int64_t t = reverse ? r.steps - 1 - s : s;
      in.push_back(
          operand(states[dd][s], {sequence ? affine({{1, "t"}}, -t) : constant(0),
                                  affine({{1, "dd"}}, -dd), constant(slot), rank("b"), rank("h")}));
    }
  }
  std::string out = ctx.out(i);
  ctx.op(OpKind::data_movement, "concat", ranks, std::move(in), operand(out, indices_of(ranks)),
         "output" + std::to_string(i));
}

void recurrent(NodeContext& ctx) {
  Dims x = ctx.shape(0), w = ctx.shape(1);
  Recurrence r{attr_int(ctx.node(), "layout", 0) != 0, 0, 0, 0, 0, 0,
               cell_of(ctx.node().op_type()),          ""};
  if (x.size() != 3 || w.size() != 3) throw ctx.fail("X and W must have rank 3");
  r.steps = x[r.batch_first ? 1 : 0], r.batch = x[r.batch_first ? 0 : 1];
  r.input = x[2], r.directions = w[0];
  r.hidden = w[1] / r.cell.gates;
  if (w[1] != r.cell.gates * r.hidden || w[2] != r.input || r.directions > 2)
    throw ctx.fail("W must be [directions, gates x hidden_size, input_size]");
  if (r.steps * r.directions > kMaxUnrolledSteps)
    throw ctx.fail(std::to_string(r.steps) + " time steps x " + std::to_string(r.directions) +
                   " direction(s) unroll to more than the " + std::to_string(kMaxUnrolledSteps) +
                   " steps Tessera builds ops for; export the model over fewer time steps (a "
                   "shorter sequence, or bind its length with a smaller --dim)");
  project_inputs(ctx, r);
  std::string c_init = r.cell.states == 2 && ctx.has_input(6) ? ctx.in(6) : "";
  std::vector<std::vector<std::string>> states(static_cast<size_t>(r.directions));
  for (int64_t dd = 0; dd < r.directions; ++dd) {
    Prev prev = initial_state(ctx, r, dd);
    for (int64_t s = 0; s < r.steps; ++s) {
      std::string state = step(ctx, r, dd, s, prev, c_init);
      states[dd].push_back(state);
      prev = Prev{state,
                  {constant(0), constant(0), constant(0), rank("b"), rank("h")},
                  {constant(0), constant(0), constant(1), rank("b"), rank("h")}};
      if (r.cell.states == 1) prev.c.clear();
    }
  }
  collect(ctx, r, 0, 0, states);
  collect(ctx, r, 1, 0, states);
  collect(ctx, r, 2, 1, states);
}

}  // namespace

void add_recurrent_converters(ConverterTable& t) {
  for (const char* op : {"LSTM", "GRU", "RNN"}) t[op] = recurrent;
}

}  // namespace tessera::onnx_import
