#include "framework/dse/mpi_runner.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

namespace tessera::dse {

namespace {

enum Tag : int { kReady = 1, kResult = 2, kWork = 3, kStop = 4 };

// MPI_Init once per process, MPI_Finalize at exit: the CLI may call run_mpi only once, but
// tests call it again.
class MpiSession {
 public:
  MpiSession() {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
      int provided = 0;
      // Only the calling thread talks MPI; oneTBB workers never do.
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
      owner_ = true;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiSession() {
    if (owner_) MPI_Finalize();
  }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  bool owner_ = false;
  int rank_ = 0, size_ = 1;
};

MpiSession& mpi() {
  static MpiSession session;
  return session;
}

void send_text(const std::string& text, int to, int tag) {
  MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD);
}

// The next message from `from` (or anyone), whatever its length. Polls with short sleeps: a
// blocking probe spins a core in OpenMPI, and rank 0 mostly waits on ranks that share its cores.
std::string receive_text(int from, int& source, int& tag) {
  MPI_Status status;
  for (int arrived = 0;;) {
    MPI_Iprobe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &status);
    if (arrived) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  std::string text(static_cast<size_t>(count), '\0');
  MPI_Recv(text.data(), count, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  source = status.MPI_SOURCE;
  tag = status.MPI_TAG;
  return text;
}

// The sweep file's name and text, or an empty text when rank 0 could not start.
void broadcast(std::string& text) {
  uint64_t size = text.size();
  MPI_Bcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  text.resize(size);
  MPI_Bcast(text.data(), static_cast<int>(size), MPI_CHAR, 0, MPI_COMM_WORLD);
}

Status coordinate(SweepSession& session, int workers) {
  const auto& todo = session.todo();
  size_t next = 0;
  Status failure = ok_status();
  while (workers > 0) {
    int source = 0, tag = 0;
    std::string text = receive_text(MPI_ANY_SOURCE, source, tag);
    if (tag == kResult && failure) {
      auto result = read_point_json(text, "the result from rank " + std::to_string(source));
      failure = result ? session.record(std::move(*result)) : Status(result.error());
    }
    if (next < todo.size() && failure) {
      send_text(std::to_string(todo[next++].index), source, kWork);
    } else {
      send_text("", source, kStop);
      --workers;
    }
  }
  if (failure && todo.empty()) return session.write_results();
  return failure;
}

void work(const SweepSpec& spec, const Registry& registry, unsigned threads) {
  driver::OpPlanCache cache;
  EvaluateOptions options;
  options.threads = threads;
  std::vector<Point> points = enumerate_points(spec);
  send_text("", 0, kReady);
  for (;;) {
    int source = 0, tag = 0;
    std::string text = receive_text(0, source, tag);
    if (tag == kStop) return;
    size_t index = std::stoull(text);
    PointResult r = evaluate_point(spec, points.at(index), registry, cache, options);
    send_text(point_json(r), 0, kResult);
  }
}

}  // namespace

bool mpi_built() {
  return true;
}

Result<MpiRun> run_mpi(const std::function<Result<SweepSession*>()>& start,
                       const Registry& registry, unsigned threads) {
  MpiSession& m = mpi();
  MpiRun run{m.rank() == 0, m.size()};
  if (m.rank() == 0) {
    auto session = start();
    std::string text = session ? (*session)->spec().file + "\n" + (*session)->spec().text : "";
    if (m.size() > 1) broadcast(text);
    if (!session) return session.error();
    if (m.size() == 1) {
      driver::OpPlanCache cache;
      Status status = run_local(**session, registry, cache, threads);
      if (!status) return status.error();
      return run;
    }
    Status status = coordinate(**session, m.size() - 1);
    if (!status) return status.error();
    return run;
  }
  std::string text;
  broadcast(text);
  if (text.empty()) return run;
  size_t newline = text.find('\n');
  auto spec = parse_sweep_text(text.substr(newline + 1), text.substr(0, newline));
  if (!spec) return run;  // rank 0 parsed the same text; it cannot fail here
  work(*spec, registry, threads);
  return run;
}

}  // namespace tessera::dse
