#include "framework/dse/mpi_runner.hpp"

#include <mpi.h>
#include <sched.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

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
      // A worker rank's slots talk from oneTBB's threads, one at a time (work()).
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
      owner_ = true;
    }
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    serialized_ = level >= MPI_THREAD_SERIALIZED;
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
  // Whether threads other than the first may call MPI (one at a time); an MPI library that
  // does not offer it gets one slot per rank.
  bool serialized() const { return serialized_; }

 private:
  bool owner_ = false;
  bool serialized_ = false;
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

// Each slot of a worker rank (one point at a time) asks with kReady, whose text is its rank's
// slot count, and again with each result; each ask gets one reply, a point or kStop. The run
// ends when every rank has been heard from and each of its slots has been stopped.
Status coordinate(SweepSession& session, int worker_ranks) {
  const auto& todo = session.todo();
  size_t next = 0;
  Status failure = ok_status();
  std::vector<bool> heard(static_cast<size_t>(worker_ranks) + 1, false);
  int unheard = worker_ranks;
  long open_slots = 0;
  while (unheard > 0 || open_slots > 0) {
    int source = 0, tag = 0;
    std::string text = receive_text(MPI_ANY_SOURCE, source, tag);
    if (tag == kReady && !heard.at(static_cast<size_t>(source))) {
      heard[static_cast<size_t>(source)] = true;
      --unheard;
      open_slots += std::stol(text);
    }
    if (tag == kResult && failure) {
      auto result = read_point_json(text, "the result from rank " + std::to_string(source));
      failure = result ? session.record(std::move(*result)) : Status(result.error());
    }
    if (next < todo.size() && failure) {
      send_text(std::to_string(todo[next++].index), source, kWork);
    } else {
      send_text("", source, kStop);
      --open_slots;
    }
  }
  if (failure && todo.empty()) return session.write_results();
  return failure;
}

// CPUs this process may run on: mpirun binds each rank to one core by default when it starts
// two or fewer, which would put all of a rank's threads on it.
unsigned cpus_allowed() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
  return static_cast<unsigned>(CPU_COUNT(&set));
}

// A worker rank evaluates up to `slots` points at once, as run_local does: each on one thread of
// an arena, each compile with the rank's thread count (nested arenas). The slots take turns to
// talk to rank 0 (MPI_THREAD_SERIALIZED): a slot holds `talk` from its ask to the reply, so no
// reply can reach another slot.
void work(const SweepSpec& spec, const Registry& registry, unsigned slots) {
  driver::OpPlanCache cache;
  EvaluateOptions options;
  options.threads = slots;
  std::vector<Point> points = enumerate_points(spec);
  std::mutex talk;
  auto slot = [&] {
    std::string ask = std::to_string(slots);
    int ask_tag = kReady;
    for (;;) {
      int source = 0, tag = 0;
      std::string text;
      {
        std::lock_guard lock(talk);
        send_text(ask, 0, ask_tag);
        text = receive_text(0, source, tag);
      }
      if (tag == kStop) return;
      PointResult r = evaluate_point(spec, points.at(std::stoull(text)), registry, cache, options);
      ask = point_json(r);
      ask_tag = kResult;
    }
  };
  tbb::task_arena arena(static_cast<int>(slots));
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<unsigned>(0, slots, 1),
        [&](const tbb::blocked_range<unsigned>& range) {
          for (unsigned i = range.begin(); i != range.end(); ++i) slot();
        },
        tbb::simple_partitioner());
  });
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
  unsigned slots = threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  if (!m.serialized()) slots = 1;
  if (unsigned cpus = cpus_allowed(); cpus > 0 && cpus < slots)
    std::fprintf(stderr,
                 "tessera sweep: rank %d may run on %u CPU(s) but evaluates %u points at once; "
                 "start mpirun with --bind-to none (OpenMPI binds each rank to one core when it "
                 "starts two or fewer)\n",
                 m.rank(), cpus, slots);
  work(*spec, registry, slots);
  return run;
}

}  // namespace tessera::dse
