// Run context: gathered once per process. The git sha is asked of git in the source
// directory when the run starts (a binary built from an older checkout still names the code
// it was built from only if nobody rebuilt: so both are kept, the run-time one first); an
// installed tandem away from its checkout falls back to the configure-time sha, marked so.
#include "harness/context.h"

#include <unistd.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

#include "engine/core/faults.h"
#include "engine/cpu/isa.h"
#include "engine/cpu/sgemm.h"
#include "engine/cuda/cuda_info.h"

#ifdef TANDEM_BLAS_OPENBLAS
extern "C" char* openblas_get_config(void);
extern "C" int openblas_get_num_threads(void);
#endif

namespace tandem {
namespace {

// The first line a shell command prints, or "" when it fails.
std::string first_line_of(const std::string& command) {
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return "";
  std::array<char, 512> buf{};
  std::string line = std::fgets(buf.data(), int(buf.size()), p) ? buf.data() : "";
  int status = ::pclose(p);
  if (status != 0) return "";
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return line;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// {"git_sha": ..., "git_sha_source": "run time" | "configure time", "git_dirty": bool}.
// --no-optional-locks: `git status` otherwise refreshes the index under .git/index.lock, and a
// `git commit` in the source tree during a run then fails on the lock.
nlohmann::json git_identity() {
  const std::string git = "git --no-optional-locks -C " + shell_quote(TANDEM_SOURCE_DIR);
  std::string sha = first_line_of(git + " rev-parse --short=12 HEAD 2>/dev/null");
  if (sha.empty()) return {{"git_sha", TANDEM_GIT_SHA}, {"git_sha_source", "configure time"}};
  // Tracked files changed since that commit: the sha alone would not name the code that ran.
  std::string changed = first_line_of(git + " status --porcelain --untracked-files=no 2>/dev/null");
  return {{"git_sha", sha}, {"git_sha_source", "run time"}, {"git_dirty", !changed.empty()}};
}

// "model name" and the number of distinct (physical id, core id) pairs in /proc/cpuinfo. An arm64
// kernel writes no model name: there the first core's "CPU implementer" and "CPU part" (the MIDR
// fields: 0x41 0xd40 is an Arm Neoverse V1) tell one CPU design from another.
std::pair<std::string, int> cpu_model_and_cores() {
  std::ifstream f("/proc/cpuinfo");
  std::string line, model, physical, implementer, part;
  std::set<std::string> cores;
  auto value = [](const std::string& l) {
    auto colon = l.find(':');
    auto start = colon == std::string::npos ? std::string::npos : l.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : l.substr(start);
  };
  while (std::getline(f, line)) {
    if (model.empty() && line.rfind("model name", 0) == 0) model = value(line);
    if (implementer.empty() && line.rfind("CPU implementer", 0) == 0) implementer = value(line);
    if (part.empty() && line.rfind("CPU part", 0) == 0) part = value(line);
    if (line.rfind("physical id", 0) == 0) physical = value(line);
    if (line.rfind("core id", 0) == 0) cores.insert(physical + "/" + value(line));
  }
  int n = cores.empty() ? int(std::thread::hardware_concurrency()) : int(cores.size());
  if (model.empty() && !implementer.empty()) model = "CPU implementer " + implementer + " part " + part;
  return {model.empty() ? "unknown" : model, n};
}

// The NVIDIA kernel driver's version ("580.65.06"), from /proc/driver/nvidia/version.
std::string nvidia_driver_version() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string word, prev;
  while (f >> word) {
    if (prev == "Module" && !word.empty() && std::isdigit(static_cast<unsigned char>(word[0]))) return word;
    prev = word;
  }
  return "";
}

// The code the CPU kernels dispatched to (engine/cpu/isa.h); a library not built in is left out.
nlohmann::json isa_context() {
  const cpu::CpuIsa isa = cpu::cpu_isa();
  nlohmann::json j = {{"vector_clones", isa.vector_clones}};
  if (!isa.onednn.empty()) j["onednn"] = isa.onednn;
  if (!isa.openblas_core.empty()) j["openblas_core"] = isa.openblas_core;
  if (!isa.arch.empty()) {  // off x86-64 only: x86 records keep the fields their baselines have
    j["arch"] = isa.arch;
    j["hwcaps"] = isa.hwcaps;
    if (isa.sve_bits > 0) j["sve_bits"] = isa.sve_bits;
  }
  return j;
}

std::string command_line() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>()), out, arg;
  std::istringstream args(all);
  while (std::getline(args, arg, '\0')) {
    bool plain = !arg.empty() && arg.find_first_of(" \t'\"\\$*?[]{}()|&;<>`") == std::string::npos;
    if (!out.empty()) out += ' ';
    out += plain ? arg : shell_quote(arg);
  }
  return out;
}

}  // namespace

std::string utc_now_iso8601() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::json load_average() {
  double l[3];
  if (getloadavg(l, 3) != 3) return nlohmann::json::array();
  return {l[0], l[1], l[2]};
}

nlohmann::json run_end_context() { return {{"load_avg_end", load_average()}, {"date_end", utc_now_iso8601()}}; }

nlohmann::json run_context() {
  static const nlohmann::json ctx = [] {
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    auto [model, cores] = cpu_model_and_cores();
    nlohmann::json c = {
        {"date", utc_now_iso8601()},
        {"load_avg_start", load_average()},
        {"command_line", command_line()},
        {"git_sha_configure", TANDEM_GIT_SHA},
        {"compiler", std::string("g++ ") + __VERSION__},
        {"build_type", TANDEM_BUILD_TYPE},
        {"host", host},
        {"cpu_model", model},
        {"cpu_cores", cores},
        {"cpu_threads", std::thread::hardware_concurrency()},
        {"ranks", 1},
    };
    c.update(git_identity());
    if (const FaultInfo* f = injected_fault()) c["injected_fault"] = f->name;  // an experiment, not a verdict
#ifdef TANDEM_BLAS_OPENBLAS
    c["blas"] = std::string(openblas_get_config());  // "OpenBLAS 0.3.21 ... Zen"
    c["blas_threads"] = openblas_get_num_threads();
#else
    c["blas"] = TANDEM_BLAS_NAME;
#endif
    c["isa"] = isa_context();
    c["sgemm"] = cpu::sgemm_library();  // "onednn" or "blas": the engine's f32 products (engine/cpu/sgemm.h)
    const char* wait = std::getenv("OMP_WAIT_POLICY");  // case workers set PASSIVE (runners/cli/case_workers.cc)
    c["omp_wait_policy"] = wait ? wait : "default";
    if (std::string(TANDEM_MPI_VERSION).size()) c["mpi"] = TANDEM_MPI_VERSION;
    if (std::string(TANDEM_NCCL_VERSION).size()) c["nccl"] = TANDEM_NCCL_VERSION;
    if (cuda_backend_built()) {
      c["cuda_runtime"] = cuda_runtime_version();
      c["cuda_driver"] = cuda_driver_version();
      c["cudnn"] = cudnn_version();
      int n = cuda_device_count();
      c["gpu_count"] = n;
      if (n > 0) c["gpu"] = cuda_device_name(0), c["cublas"] = cublas_version();  // opened only where it can run
    }
    if (std::string driver = nvidia_driver_version(); !driver.empty()) c["gpu_driver"] = driver;
    return c;
  }();
  return ctx;
}

}  // namespace tandem
