// Running code in a child process: what it reports arrives as sent, even just before it crashes,
// and how it ended is told in words.
#include "framework/plugin/child_process.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <stdexcept>

namespace tessera {
namespace {

using Records = std::vector<std::vector<std::string>>;

TEST(ChildProcess, RecordsArriveAsSentAndTheExitStatusWithThem) {
  auto outcome = run_in_child([](const ChildReporter& reporter) {
    reporter.send({"plain", ""});
    reporter.send({"tab\there", "new\nline", "back\\slash\\n"});
    return 3;
  });
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(outcome->records,
            (Records{{"plain", ""}, {"tab\there", "new\nline", "back\\slash\\n"}}));
  EXPECT_TRUE(outcome->exited);
  EXPECT_EQ(outcome->exit_status, 3);
  EXPECT_EQ(outcome->how_it_ended(), "exited with status 3");
}

TEST(ChildProcess, ACrashEndsTheChildNotTheCallerAndWhatItSaidFirstArrives) {
  auto outcome = run_in_child([](const ChildReporter& reporter) {
    reporter.send({"about to crash"});
    __builtin_trap();  // SIGILL: the sanitizers leave it to the default action
    return 0;
  });
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(outcome->records, (Records{{"about to crash"}}));
  EXPECT_FALSE(outcome->exited);
  EXPECT_EQ(outcome->signal, SIGILL);
  EXPECT_EQ(outcome->how_it_ended(), "crashed with SIGILL (Illegal instruction)");
}

TEST(ChildProcess, ASignalFromOutsideIsNotACrash) {
  auto outcome = run_in_child([](const ChildReporter&) {
    raise(SIGKILL);
    return 0;
  });
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(outcome->how_it_ended(), "was killed by SIGKILL (Killed)");
}

// A child that never finishes is killed at its deadline; what it said before still arrives.
TEST(ChildProcess, AChildPastItsDeadlineIsKilled) {
  auto outcome = run_in_child(
      [](const ChildReporter& reporter) {
        reporter.send({"looping"});
        for (;;) pause();
        return 0;
      },
      1);
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(outcome->records, (Records{{"looping"}}));
  EXPECT_EQ(outcome->deadline_s, 1);
  EXPECT_EQ(outcome->how_it_ended(), "did not finish within 1 s and was killed");
}

TEST(ChildProcess, AnExceptionFromTheBodyIsExitStatus5) {
  auto outcome = run_in_child(
      [](const ChildReporter&) -> int { throw std::runtime_error("the body gave up"); });
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(outcome->how_it_ended(), "exited with status 5");
}

}  // namespace
}  // namespace tessera
