// Bad ONNX input: one clear error each, never a crash.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <fstream>
#include <iterator>

#include "framework/frontend/onnx/importer.hpp"

#ifndef TESSERA_SOURCE_DIR
#error "TESSERA_SOURCE_DIR must be defined by the build"
#endif

namespace tessera::onnx_import {
namespace {

void add_output(onnx::GraphProto& g, const std::string& name,
                int32_t elem_type = onnx::TensorProto::FLOAT) {
  auto* out = g.add_output();
  out->set_name(name);
  auto* t = out->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  t->mutable_shape()->add_dim()->set_dim_param("unknown");
}

void add_input(onnx::GraphProto& g, const std::string& name, std::vector<std::string> dims) {
  auto* in = g.add_input();
  in->set_name(name);
  auto* t = in->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (const auto& d : dims) {
    auto* dim = t->mutable_shape()->add_dim();
    if (std::isdigit(static_cast<unsigned char>(d[0])))
      dim->set_dim_value(std::stoll(d));
    else
      dim->set_dim_param(d);
  }
}

// x[batch, 8] -> op_type -> y, opset 13.
std::string one_node_model(const std::string& op_type,
                           int32_t out_type = onnx::TensorProto::FLOAT) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  add_input(*g, "x", {"batch", "8"});
  auto* n = g->add_node();
  n->set_name("the_node");
  n->set_op_type(op_type);
  n->add_input("x");
  n->add_output("y0");
  add_output(*g, "y0", out_type);
  return m.SerializeAsString();
}

Error import_error(const std::string& bytes, std::map<std::string, int64_t> dims = {},
                   bool skip = false) {
  auto r = import_onnx_bytes(bytes, "m.onnx", OnnxOptions{std::move(dims), skip, std::nullopt});
  EXPECT_FALSE(r);
  return r ? Error{} : r.error();
}

TEST(OnnxErrors, NotAFileNotOnnxTruncated) {
  auto missing = import_onnx_file("/nonexistent/m.onnx", {});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message,
            "/nonexistent/m.onnx: cannot open the file (does it exist and is it readable?)");
  EXPECT_EQ(import_error("").message, "m.onnx: the file is empty; expected an ONNX model");
  EXPECT_EQ(import_error("\xff\xff\xff\xff garbage").message,
            "m.onnx: not an ONNX model (it does not parse as an ONNX ModelProto; is it truncated, "
            "or another format?)");
  std::ifstream in(std::string(TESSERA_SOURCE_DIR) + "/models/fixtures/gpt_like.onnx",
                   std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t cut : {bytes.size() / 2, bytes.size() - 1, size_t{100}}) {
    Error e = import_error(bytes.substr(0, cut), {{"batch", 1}, {"seq", 4}});
    EXPECT_EQ(e.kind, ErrorKind::input);
    EXPECT_EQ(e.message.rfind("m.onnx: ", 0), 0u) << e.message;
  }
}

TEST(OnnxErrors, SymbolicDimensionsMustBeBound) {
  std::string model = one_node_model("Relu");
  EXPECT_EQ(import_error(model).message,
            "m.onnx: input 'x' dimension 0 is the symbolic dimension 'batch', which is not bound; "
            "pass --dim batch=VALUE");
  EXPECT_EQ(import_error(model, {{"batch", 2}, {"seqq", 3}}).message,
            "m.onnx: --dim seqq=3: the model has no symbolic input dimension 'seqq' (it has: "
            "batch)");
  auto ok = import_onnx_bytes(model, "m.onnx", OnnxOptions{{{"batch", 4}}, false, std::nullopt});
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->ops()[0].einsum.ranks_str(), "d0=4 d1=8");
}

TEST(OnnxErrors, UnsupportedOpNamesNodeTypeAndOpset) {
  std::string model = one_node_model("Hardmax2");
  EXPECT_EQ(import_error(model, {{"batch", 2}}).message,
            "m.onnx: invalid ONNX model: No Op registered for Hardmax2 with domain_version of 13 "
            "==> Context: Bad node spec for node. Name: the_node OpType: Hardmax2");
  // Data-dependent shapes cannot be skipped either: the placeholder needs its output's shape.
  std::string nonzero = one_node_model("NonZero", onnx::TensorProto::INT64);
  EXPECT_EQ(import_error(nonzero, {{"batch", 2}}, true).message,
            "m.onnx: node 'the_node' (NonZero, opset 13): output 'y0' has no static shape: node "
            "'the_node' (NonZero) computes its shape from the values of 'x', a model input; "
            "shapes computed from data are not supported (a value that holds a shape must be an "
            "initializer, a constant or computed from shapes)");
  std::string lrn = one_node_model("LpNormalization");
  EXPECT_EQ(import_error(lrn, {{"batch", 2}}).message,
            "m.onnx: node 'the_node' (LpNormalization, opset 13): unsupported op "
            "(docs/workloads.md lists the supported ones); pass --skip-unsupported to import it "
            "as a zero-cost placeholder");
  auto skipped = import_onnx_bytes(lrn, "m.onnx", OnnxOptions{{{"batch", 2}}, true, std::nullopt});
  ASSERT_TRUE(skipped) << skipped.error().message;
  ASSERT_EQ(skipped->ops().size(), 1u);
  EXPECT_EQ(skipped->ops()[0].kind, ir::OpKind::other);
  EXPECT_EQ(skipped->ops()[0].einsum.fn, "placeholder");
}

// Names come from the file: a newline or a megabyte in one must not forge or flood the message.
TEST(OnnxErrors, NamesFromTheFileAreEscapedAndCut) {
  onnx::ModelProto m;
  m.ParseFromString(one_node_model("LpNormalization"));
  std::string evil = "evil\n" + std::string(5000, 'a');
  m.mutable_graph()->mutable_node(0)->set_name(evil);
  std::string message = import_error(m.SerializeAsString(), {{"batch", 2}}).message;
  EXPECT_EQ(message.rfind("m.onnx: node 'evil\\x0Aaaaa", 0), 0u) << message;
  EXPECT_NE(message.find("aaa…' (LpNormalization, opset 13): unsupported op"), std::string::npos)
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
  EXPECT_LT(message.size(), 600u);
}

TEST(OnnxErrors, ExternalDataIsNeverRead) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  add_input(*g, "x", {"4", "8"});
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(8);
  w->add_dims(16);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* loc = w->add_external_data();
  loc->set_key("location");
  loc->set_value("weights.bin");
  auto* n = g->add_node();
  n->set_op_type("MatMul");
  n->add_input("x");
  n->add_input("w");
  n->add_output("y");
  add_output(*g, "y");
  auto r = import_onnx_bytes(m.SerializeAsString(), "m.onnx", {});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_DOUBLE_EQ(r->find_tensor("w")->bytes(), 8 * 16 * 4.0);
  EXPECT_EQ(r->ops()[0].einsum.str(), "mac([m,k],[k,n])->[m,n]");
}

}  // namespace
}  // namespace tessera::onnx_import
