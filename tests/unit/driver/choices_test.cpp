// The model's words as the CLI and the Python module both give them: what reaches load_model, and
// the one message each malformed word gets.
#include "framework/driver/choices.hpp"

#include <gtest/gtest.h>

namespace tessera::driver {
namespace {

std::string error_of(const ModelWords& words) {
  auto r = parse_model_request(words);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.error().message;
}

TEST(ModelWords, AbsentWordsKeepTheModelsDefaultsAndMarkNoShape) {
  ModelWords words;
  words.model = "llama2-7b";
  words.dims = {"batch=16", "past=31"};
  ModelRequest r = parse_model_request(words).take();
  EXPECT_EQ(r.model, "llama2-7b");
  EXPECT_EQ(r.onnx.dims, (std::map<std::string, int64_t>{{"batch", 16}, {"past", 31}}));
  EXPECT_EQ(r.shape.batch, 1);
  EXPECT_FALSE(r.shape.seq || r.shape.mode || r.shape.dtype || r.shape.weight_dtype);
  EXPECT_FALSE(r.shape_given);
}

TEST(ModelWords, EachShapeWordIsTakenAndMarksTheShapeGiven) {
  ModelWords words;
  words.batch = 4;
  words.seq = 512;
  words.mode = "prefill";
  words.dtype = "fp16";
  words.weight_dtype = "bfp8";
  ModelRequest r = parse_model_request(words).take();
  EXPECT_EQ(r.shape.batch, 4);
  EXPECT_EQ(r.shape.seq, 512);
  EXPECT_EQ(r.shape.mode, zoo::Mode::prefill);
  EXPECT_EQ(r.shape.dtype, ir::DType::fp16);
  EXPECT_EQ(r.shape.weight_dtype, ir::DType::bfp8);
  EXPECT_TRUE(r.shape_given);
  ModelWords dtype_only;
  dtype_only.dtype = "bf16";
  EXPECT_TRUE(parse_model_request(dtype_only).take().shape_given);
}

TEST(ModelWords, MalformedWordsNameTheFieldAndWhatItTakes) {
  ModelWords dim;
  dim.dims = {"batch"};
  EXPECT_EQ(error_of(dim),
            "--dim 'batch': expected NAME=VALUE with VALUE in [1, 16777216], e.g. --dim batch=16");
  dim.dims = {"batch=2", "batch=3"};
  EXPECT_EQ(error_of(dim), "--dim batch is given twice");
  ModelWords mode;
  mode.mode = "train";
  EXPECT_EQ(error_of(mode), "mode 'train': expected decode or prefill");
  ModelWords dtype;
  dtype.dtype = "bfp8";  // a storage type for weights alone, not what ops compute in
  EXPECT_EQ(error_of(dtype), "dtype 'bfp8': expected fp32, fp16, bf16 or fp8");
  ModelWords weights;
  weights.weight_dtype = "fp32";
  EXPECT_EQ(error_of(weights), "weight_dtype 'fp32': expected fp16, bf16, fp8 or bfp8");
}

}  // namespace
}  // namespace tessera::driver
