// Error discipline: NULL or out-of-range arguments give INVALID_ARGUMENT, never an abort, a crash
// or an exception, and a failed constructor leaves *out alone. Everything is called through the raw
// C vtables, as a host built with another compiler would.
#include <cstddef>
#include <functional>

#include "sdk/conformance/plugin_under_test.hpp"
#include "sdk/conformance/suites.hpp"

namespace tessera::conformance {

void link_errors_suite() {}

namespace {

constexpr const char* kUnknownKey = "definitely_not_a_param";

struct BadCall {
  std::string what;
  std::function<tessera_status*()> call;
};

void expect_all_invalid(const std::vector<BadCall>& calls) {
  for (const auto& c : calls) expect_invalid_argument(c.what, c.call);
}

// Releases what a constructor made although it should have failed, if the vtable allows it (a
// malformed one is leaked: calling into it would crash the suite).
template <class CApi>
void release_if_made(CApi* object) {
  if (object != nullptr &&
      object->struct_size >= offsetof(CApi, release) + sizeof(object->release) &&
      object->release != nullptr)
    object->release(object);
}

class Errors : public PluginTest {
 protected:
  // Calls check(name, constructor, default params, tag) for every constructor the plugin has.
  template <class Check>
  void each_constructor(Check&& check) {
    for (Interface i : provided()) {
      auto params = default_params(manifest(), i);
      ASSERT_TRUE(params) << params.error().message;
      visit_interface(i, [&](auto tag) {
        using CApi = typename decltype(tag)::Type;
        auto ctor = descriptor().*Api<CApi>::kSlot;
        ASSERT_NE(ctor, nullptr) << to_string(i);
        check("create_" + std::string(to_string(i)), ctor, *params, tag);
      });
    }
  }

  // A default object of CApi for the test body; fails the test when it cannot be made.
  template <class CApi>
  CApi* make() {
    auto object = create_default<CApi>(library());
    if (!object) {
      ADD_FAILURE() << object.error().message;
      return nullptr;
    }
    objects_.push_back(std::shared_ptr<CApi>(object.value().release(), Releaser()));
    return static_cast<CApi*>(objects_.back().get());
  }

 private:
  std::vector<std::shared_ptr<void>> objects_;
};

TEST_P(Errors, ConstructorsRejectNullOut) {
  each_constructor([](const std::string& name, auto ctor, const ParamList& params, auto) {
    CParams c(params);
    expect_invalid_argument(name + "(params, out = NULL)", [&] { return ctor(c.get(), nullptr); });
  });
}

TEST_P(Errors, ConstructorsRejectMissingParams) {
  each_constructor([](const std::string& name, auto ctor, const ParamList&, auto tag) {
    const tessera_param null_key{nullptr, "1"};
    const tessera_params no_items{1, nullptr, nullptr}, bad_item{1, &null_key, nullptr};
    for (const auto& [what, params] :
         {std::pair{"params = NULL", static_cast<const tessera_params*>(nullptr)},
          std::pair{"params {count 1, items NULL}", &no_items},
          std::pair{"params {count 1, items[0].key NULL}", &bad_item}}) {
      typename decltype(tag)::Type* out = nullptr;
      expect_invalid_argument(name + "(" + what + ", out)", [&] { return ctor(params, &out); });
      EXPECT_EQ(out, nullptr) << name << " wrote *out although it failed";
      release_if_made(out);
    }
  });
}

TEST_P(Errors, ConstructorsRejectUnknownParameters) {
  each_constructor([](const std::string& name, auto ctor, const ParamList& params, auto tag) {
    ParamList bad = params;
    bad.items.emplace_back(kUnknownKey, "1");
    CParams c(bad);
    typename decltype(tag)::Type* out = nullptr;
    std::string message = expect_invalid_argument(name + "(default chip + '" + kUnknownKey + "')",
                                                  [&] { return ctor(c.get(), &out); });
    EXPECT_NE(message.find(kUnknownKey), std::string::npos)
        << "the message must name the unknown key: " << message;
    EXPECT_EQ(out, nullptr) << name << " wrote *out although it failed";
    release_if_made(out);
  });
}

TEST_P(Errors, TopologyRejectsNullOutputs) {
  TESSERA_SKIP_UNLESS_PROVIDES(Interface::topology);
  tessera_topology* t = make<tessera_topology>();
  ASSERT_NE(t, nullptr);
  size_t count = 0;
  expect_all_invalid({
      {"get_info(out = NULL)", [&] { return t->get_info(t, nullptr); }},
      {"peak_flops_per_s(out = NULL)",
       [&] { return t->peak_flops_per_s(t, TESSERA_DTYPE_FP32, nullptr); }},
      {"get_endpoint(0, out = NULL)", [&] { return t->get_endpoint(t, 0, nullptr); }},
      {"get_link(0, out = NULL)", [&] { return t->get_link(t, 0, nullptr); }},
      {"get_level(0, out = NULL)", [&] { return t->get_level(t, 0, nullptr); }},
      {"route(0, 0, count = NULL)", [&] { return t->route(t, 0, 0, nullptr, 0, nullptr); }},
      {"route(0, 0, links = NULL, capacity 4)",
       [&] { return t->route(t, 0, 0, nullptr, 4, &count); }},
  });
}

TEST_P(Errors, TopologyRejectsIndicesOutOfRange) {
  TESSERA_SKIP_UNLESS_PROVIDES(Interface::topology);
  tessera_topology* t = make<tessera_topology>();
  ASSERT_NE(t, nullptr);
  tessera_topology_info info{};
  info.struct_size = sizeof(info);
  ASSERT_EQ(outcome(invoke("get_info", [&] { return t->get_info(t, &info); })), "OK");
  tessera_endpoint endpoint{};
  endpoint.struct_size = sizeof(endpoint);
  tessera_link link{};
  link.struct_size = sizeof(link);
  tessera_level level{};
  level.struct_size = sizeof(level);
  double flops = 0;
  std::vector<BadCall> calls;
  for (bool at_count : {true, false}) {
    // The first index past the end, and the largest possible one.
    auto bad = [at_count](uint32_t count) { return at_count ? count : UINT32_MAX; };
    const std::string what = at_count ? " = count" : " = UINT32_MAX";
    calls.push_back({"get_endpoint(index" + what + ")", [&, i = bad(info.num_endpoints)] {
                       return t->get_endpoint(t, i, &endpoint);
                     }});
    calls.push_back({"get_link(index" + what + ")",
                     [&, i = bad(info.num_links)] { return t->get_link(t, i, &link); }});
    calls.push_back({"get_level(index" + what + ")",
                     [&, i = bad(info.num_levels)] { return t->get_level(t, i, &level); }});
    calls.push_back({"peak_flops_per_s(dtype" + what + ")",
                     [&, i = bad(dtype_count())] { return t->peak_flops_per_s(t, i, &flops); }});
  }
  expect_all_invalid(calls);
}

TEST_P(Errors, TopologyRejectsRoutesBetweenMissingEndpoints) {
  TESSERA_SKIP_UNLESS_PROVIDES(Interface::topology);
  tessera_topology* t = make<tessera_topology>();
  ASSERT_NE(t, nullptr);
  tessera_topology_info info{};
  info.struct_size = sizeof(info);
  ASSERT_EQ(outcome(invoke("get_info", [&] { return t->get_info(t, &info); })), "OK");
  const uint32_t n = info.num_endpoints;
  std::vector<uint32_t> links(64);
  size_t count = 0;
  auto route = [&](uint32_t src, uint32_t dst) {
    return BadCall{
        "route(" + std::to_string(src) + ", " + std::to_string(dst) + ") of " + std::to_string(n) +
            " endpoints",
        [&, src, dst] { return t->route(t, src, dst, links.data(), links.size(), &count); }};
  };
  expect_all_invalid({route(n, 0), route(0, n), route(UINT32_MAX, 0), route(0, UINT32_MAX)});
}

TEST_P(Errors, CostModelRejectsNullArguments) {
  TESSERA_SKIP_UNLESS_PROVIDES(Interface::cost_model);
  tessera_cost_model* c = make<tessera_cost_model>();
  ASSERT_NE(c, nullptr);
  tessera_tile_query tile{};
  tessera_transfer_query transfer{};
  double seconds = 0;
  expect_all_invalid({
      {"get_info(out = NULL)", [&] { return c->get_info(c, nullptr); }},
      {"tile_seconds(queries = NULL)",
       [&] { return c->tile_seconds(c, nullptr, sizeof(tile), 1, &seconds); }},
      {"tile_seconds(seconds = NULL)",
       [&] { return c->tile_seconds(c, &tile, sizeof(tile), 1, nullptr); }},
      {"transfer_seconds(queries = NULL)",
       [&] { return c->transfer_seconds(c, nullptr, sizeof(transfer), 1, &seconds); }},
      {"transfer_seconds(seconds = NULL)",
       [&] { return c->transfer_seconds(c, &transfer, sizeof(transfer), 1, nullptr); }},
  });
}

int accept_plan(void*, const tessera_partition_plan*) {
  return 0;
}

TEST_P(Errors, PartitionerRejectsNullArguments) {
  TESSERA_SKIP_UNLESS_PROVIDES(Interface::partitioner);
  tessera_partitioner* p = make<tessera_partitioner>();
  ASSERT_NE(p, nullptr);
  tessera_op_desc op{};
  op.struct_size = sizeof(op);
  op.name = "conformance";
  tessera_plan_sink sink{nullptr, &accept_plan}, no_add{nullptr, nullptr};
  expect_all_invalid({
      {"plans(op = NULL)", [&] { return p->plans(p, nullptr, &sink); }},
      {"plans(sink = NULL)", [&] { return p->plans(p, &op, nullptr); }},
      {"plans(sink.add = NULL)", [&] { return p->plans(p, &op, &no_add); }},
  });
}

TEST_P(Errors, LayoutMapperRejectsNullArguments) {
  TESSERA_SKIP_UNLESS_PROVIDES(Interface::layout_mapper);
  tessera_layout_mapper* m = make<tessera_layout_mapper>();
  ASSERT_NE(m, nullptr);
  const uint64_t shape[1] = {8};
  uint64_t index[1] = {0};
  tessera_layout* layout = nullptr;
  tessera_location location{};
  char text[16];
  size_t length = 0;
  expect_all_invalid({
      {"parse(text = NULL)", [&] { return m->parse(m, nullptr, shape, 1, &layout); }},
      {"parse(shape = NULL, rank 1)", [&] { return m->parse(m, "x", nullptr, 1, &layout); }},
      {"parse(out = NULL)", [&] { return m->parse(m, "x", shape, 1, nullptr); }},
      {"format(layout = NULL)", [&] { return m->format(m, nullptr, text, sizeof(text), &length); }},
      {"locate(layout = NULL)", [&] { return m->locate(m, nullptr, index, 1, &location); }},
      {"inverse(layout = NULL)", [&] { return m->inverse(m, nullptr, &location, 1, index); }},
  });
  EXPECT_EQ(layout, nullptr) << "parse wrote *out although it failed";
}

int accept_file(void*, const char*, const void*, size_t) {
  return 0;
}

TEST_P(Errors, CodeGenRejectsNullArguments) {
  TESSERA_SKIP_UNLESS_PROVIDES(Interface::codegen);
  tessera_codegen* g = make<tessera_codegen>();
  ASSERT_NE(g, nullptr);
  tessera_program program{};
  program.struct_size = sizeof(program);
  program.name = "conformance";
  tessera_file_sink sink{nullptr, &accept_file}, no_write{nullptr, nullptr};
  expect_all_invalid({
      {"emit(program = NULL)", [&] { return g->emit(g, nullptr, &sink); }},
      {"emit(sink = NULL)", [&] { return g->emit(g, &program, nullptr); }},
      {"emit(sink.write = NULL)", [&] { return g->emit(g, &program, &no_write); }},
  });
}

TEST_P(Errors, MemoryModelRejectsNullArguments) {
  TESSERA_SKIP_UNLESS_PROVIDES(Interface::memory_model);
  tessera_memory_model* m = make<tessera_memory_model>();
  ASSERT_NE(m, nullptr);
  tessera_memory_request request{};
  tessera_completion_sink no_complete{nullptr, nullptr};
  size_t accepted = 0;
  double value = 0;
  expect_all_invalid({
      {"get_info(out = NULL)", [&] { return m->get_info(m, nullptr); }},
      {"submit(requests = NULL, count 1)", [&] { return m->submit(m, nullptr, 1, &accepted); }},
      {"submit(accepted = NULL)", [&] { return m->submit(m, &request, 1, nullptr); }},
      {"advance(sink = NULL)", [&] { return m->advance(m, 1, nullptr); }},
      {"advance(sink.complete = NULL)", [&] { return m->advance(m, 1, &no_complete); }},
      {"get_stats(out = NULL)", [&] { return m->get_stats(m, nullptr); }},
      {"sustained(bytes_per_s = NULL)", [&] { return m->sustained(m, 1, nullptr, &value); }},
      {"sustained(latency_s = NULL)", [&] { return m->sustained(m, 1, &value, nullptr); }},
  });
}

}  // namespace

TESSERA_INSTANTIATE_FOR_PLUGINS(Errors);

}  // namespace tessera::conformance
