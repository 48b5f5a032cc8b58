// Requests drawn and read: the same for a seed, the distributions' bounds, and every bad input's
// exact words (a trace's FILE:LINE and field).
#include "framework/serve/requests.hpp"

#include <gtest/gtest.h>

#include "framework/serve/trace_file.hpp"
#include "tests/unit/temp_dir.hpp"

namespace tessera::serve {
namespace {

SyntheticLoad load_of(const std::string& prompt, double rate = 4) {
  return SyntheticLoad{ArrivalKind::poisson,
                       rate,
                       1,
                       parse_length_dist(prompt, "--prompt").take(),
                       LengthDist{LengthKind::fixed, 8, 0},
                       20000,
                       3};
}

TEST(Requests, ASeedGivesTheSameRequests) {
  auto a = synthetic_requests(load_of("zipf:1.1:4096")).take();
  auto b = synthetic_requests(load_of("zipf:1.1:4096")).take();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].arrival_s, b[i].arrival_s);
    EXPECT_EQ(a[i].prompt_tokens, b[i].prompt_tokens);
  }
  EXPECT_NEAR(a.back().arrival_s / 20000 * 4, 1.0, 0.03);  // mean gap 1/rate
}

TEST(Requests, LengthsStayWithinTheirDistribution) {
  for (std::string text : {"uniform:10:20", "zipf:1.5:50", "normal:100:300", "lognormal:64:1"}) {
    auto requests = synthetic_requests(load_of(text)).take();
    double sum = 0;
    for (const Request& r : requests) {
      EXPECT_GE(r.prompt_tokens, 1) << text;
      EXPECT_LE(r.prompt_tokens, max_length(parse_length_dist(text, "--prompt").take())) << text;
      sum += static_cast<double>(r.prompt_tokens);
    }
    if (text == "uniform:10:20") {
      EXPECT_NEAR(sum / 20000, 15, 0.1);
    }
  }
}

TEST(Requests, GammaArrivalsHaveTheirCoefficientOfVariation) {
  SyntheticLoad load = load_of("fixed:1", 10);
  load.arrivals = ArrivalKind::gamma;
  load.gamma_cv = 2;
  auto requests = synthetic_requests(load).take();
  double sum = 0, squares = 0, last = 0;
  for (const Request& r : requests) {
    double gap = r.arrival_s - last;
    last = r.arrival_s;
    sum += gap;
    squares += gap * gap;
  }
  double n = static_cast<double>(requests.size()), mean = sum / n;
  EXPECT_NEAR(mean, 0.1, 0.005);
  EXPECT_NEAR(std::sqrt(squares / n - mean * mean) / mean, 2, 0.1);
}

TEST(Requests, BadDistributionsAndRatesSayWhatIsExpected) {
  EXPECT_EQ(parse_length_dist("uniform:20:10", "--prompt").error().message,
            "--prompt 'uniform:20:10': expected 1 <= LO <= HI; give fixed:N, uniform:LO:HI, "
            "normal:MEAN:SD, lognormal:MEDIAN:SIGMA or zipf:S:MAX (lengths in tokens)");
  EXPECT_EQ(parse_length_dist("gauss:1", "--output").error().message,
            "--output 'gauss:1': unknown distribution 'gauss'; give fixed:N, uniform:LO:HI, "
            "normal:MEAN:SD, lognormal:MEDIAN:SIGMA or zipf:S:MAX (lengths in tokens)");
  EXPECT_EQ(parse_length_dist("fixed:nan", "--prompt").error().message,
            "--prompt 'fixed:nan': expected finite numbers after the kind; give fixed:N, "
            "uniform:LO:HI, normal:MEAN:SD, lognormal:MEDIAN:SIGMA or zipf:S:MAX (lengths in "
            "tokens)");
  SyntheticLoad zero = load_of("fixed:1", 0);
  EXPECT_EQ(synthetic_requests(zero).error().message,
            "--rate 0: expected requests per second, a finite number above 0 (e.g. --rate 2)");
  SyntheticLoad nan = load_of("fixed:1", std::nan(""));
  EXPECT_EQ(synthetic_requests(nan).error().kind, ErrorKind::usage);
}

TEST(Requests, ARequestLongerThanTheMachineHoldsIsRefused) {
  EXPECT_TRUE(check_request(Request{0, 0, 100, 28}, 128, "the KV cache", "x").ok());
  EXPECT_EQ(
      check_request(Request{0, 0, 100, 29}, 128, "the KV cache's 128 tokens on c", "trace.csv:3")
          .error()
          .message,
      "trace.csv:3: prompt_tokens 100 + output_tokens 29 = 129 exceeds the 128 tokens one "
      "request may hold (the KV cache's 128 tokens on c); shorten the request, or serve on "
      "a machine with more memory");
}

class Traces : public ::testing::Test {
 protected:
  std::string error_of(const std::string& name, const std::string& text) {
    auto rows = read_trace(dir.write(name, text));
    EXPECT_FALSE(rows.ok());
    std::string message = rows.ok() ? "" : rows.error().message;
    auto at = message.find(name);
    return at == std::string::npos ? message : message.substr(at);
  }
  testing::TempDir dir;
};

TEST_F(Traces, CsvAndJsonlReadTheSameRequestsInArrivalOrder) {
  auto csv = read_trace(dir.write("t.csv",
                                  "# a comment\nprompt_tokens,arrival_s,output_tokens\n"
                                  "512,0.5,128\n\n64,0.25,8\n"))
                 .take();
  auto jsonl = read_trace(dir.write("t.jsonl",
                                    "{\"arrival_s\": 0.5, \"prompt_tokens\": 512, "
                                    "\"output_tokens\": 128}\n{\"arrival_s\": 0.25, "
                                    "\"prompt_tokens\": 64, \"output_tokens\": 8}\n"))
                   .take();
  ASSERT_EQ(csv.size(), 2u);
  ASSERT_EQ(jsonl.size(), 2u);
  for (const auto* rows : {&csv, &jsonl}) {
    EXPECT_EQ((*rows)[0].request.prompt_tokens, 64);
    EXPECT_EQ((*rows)[0].request.id, 0);
    EXPECT_EQ((*rows)[1].request.arrival_s, 0.5);
  }
  EXPECT_EQ(csv[0].source.substr(csv[0].source.size() - 7), "t.csv:5");
}

TEST_F(Traces, EachBadRowNamesItsLineAndField) {
  EXPECT_EQ(error_of("neg.csv", "arrival_s,prompt_tokens,output_tokens\n1,2,3\n-1,2,3\n"),
            "neg.csv:3: arrival_s: expected seconds from the trace's start, a finite number >= "
            "0, got '-1'");
  EXPECT_EQ(error_of("zero.csv", "arrival_s,prompt_tokens,output_tokens\n1,0,3\n"),
            "zero.csv:2: prompt_tokens: expected a whole number of tokens in [1, 16777216], got "
            "'0'");
  EXPECT_EQ(error_of("nan.jsonl",
                     "{\"arrival_s\": \"nan\", \"prompt_tokens\": 1, "
                     "\"output_tokens\": 1}\n"),
            "nan.jsonl:1: arrival_s: expected seconds from the trace's start, a finite number >= "
            "0, got '\"nan\"'");
  EXPECT_EQ(error_of("head.csv", "arrival,prompt_tokens,output_tokens\n"),
            "head.csv:1: unknown field 'arrival'; a trace has arrival_s, prompt_tokens and "
            "output_tokens");
  EXPECT_EQ(error_of("cells.csv", "arrival_s,prompt_tokens,output_tokens\n1,2\n"),
            "cells.csv:2: expected 3 comma-separated cells as the header names, got 2");
  EXPECT_EQ(error_of("empty.csv", "arrival_s,prompt_tokens,output_tokens\n"),
            "empty.csv: the trace holds no request; add rows of arrival_s, prompt_tokens, "
            "output_tokens (docs/formats.md)");
  EXPECT_EQ(error_of("missing.jsonl", "{\"arrival_s\": 1, \"prompt_tokens\": 1}\n"),
            "missing.jsonl:1: missing output_tokens (a whole number of tokens in [1, 16777216])");
}

}  // namespace
}  // namespace tessera::serve
