// The peer-status side channel (see peer_status.h): address cards exchanged over MPI once,
// then plain-text UDP datagrams — a question "TQ token from" and an answer
// "TA token rank in_call call_no for_s\nwhat". The token (rank 0's random number) keeps
// another job's datagrams, or a stray one, from being taken for an answer.
#include "engine/comm/peer_status.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "engine/comm/job.h"
#include "engine/core/error.h"
#include "engine/core/rank_env.h"

namespace tandem::comm {
namespace {

// One rank's address card, the same size on every rank (one MPI_Allgather of bytes).
struct Card {
  uint64_t token = 0;
  int32_t rank = -1;
  uint16_t port = 0;    // 0: this rank has no socket
  uint16_t n_addr = 0;
  uint32_t addr[8] = {};  // IPv4, network order: every interface that is up
  char host[64] = {};
};

struct Channel {
  int rank = 0;
  uint64_t token = 0;
  std::vector<Card> cards;
  PeerStateFn mine = nullptr;
};
Channel* g_channel = nullptr;  // set once, before any watchdog can survey; never freed

int open_udp_socket(uint16_t* port) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof a;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    close(fd);
    return -1;
  }
  *port = ntohs(a.sin_port);
  return fd;
}

// Every IPv4 address this host has up, loopback last (peers on the same host reach it).
void fill_addresses(Card& c) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return;
  std::vector<uint32_t> outside, loop;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP)) continue;
    const uint32_t a = reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr;
    ((i->ifa_flags & IFF_LOOPBACK) ? loop : outside).push_back(a);
  }
  freeifaddrs(list);
  for (const auto* v : {&outside, &loop})
    for (uint32_t a : *v)
      if (c.n_addr < 8) c.addr[c.n_addr++] = a;
}

std::string answer_for(const Channel& ch, PeerState s) {
  char head[128];
  std::snprintf(head, sizeof head, "TA %llu %d %d %llu %.1f\n", (unsigned long long)ch.token, ch.rank,
                int(s.in_call), (unsigned long long)s.call_no, s.for_s);
  return head + s.what.substr(0, 1000);
}

// The responder: answers each question with this rank's state, for the life of the process.
void respond_forever(int fd) {
  char buf[256];
  for (;;) {
    sockaddr_in from{};
    socklen_t len = sizeof from;
    const ssize_t n = recvfrom(fd, buf, sizeof buf - 1, 0, reinterpret_cast<sockaddr*>(&from), &len);
    if (n <= 0) continue;
    buf[n] = 0;
    unsigned long long token = 0;
    int asker = -1;
    if (std::sscanf(buf, "TQ %llu %d", &token, &asker) != 2 || token != g_channel->token) continue;
    const std::string a = answer_for(*g_channel, g_channel->mine());
    sendto(fd, a.data(), a.size(), 0, reinterpret_cast<sockaddr*>(&from), len);
  }
}

struct Answer {
  bool heard = false;
  PeerState state;
};

void ask(int fd, const Channel& ch, int peer) {
  const Card& c = ch.cards[size_t(peer)];
  if (!c.port) return;
  const std::string q = cat("TQ ", ch.token, " ", ch.rank);
  for (int i = 0; i < c.n_addr; ++i) {
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(c.port);
    to.sin_addr.s_addr = c.addr[i];
    sendto(fd, q.data(), q.size(), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&to), sizeof to);
  }
}

// Reads the answers waiting on fd into `got`.
void collect(int fd, const Channel& ch, std::vector<Answer>& got) {
  char buf[1200];
  for (;;) {
    const ssize_t n = recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT);
    if (n <= 0) return;
    buf[n] = 0;
    unsigned long long token = 0, call_no = 0;
    int rank = -1, in_call = 0;
    double for_s = 0;
    if (std::sscanf(buf, "TA %llu %d %d %llu %lf", &token, &rank, &in_call, &call_no, &for_s) != 5 ||
        token != ch.token || rank < 0 || size_t(rank) >= got.size())
      continue;
    const char* nl = std::strchr(buf, '\n');
    got[size_t(rank)] = {true, {in_call != 0, call_no, for_s, nl ? std::string(nl + 1) : ""}};
  }
}

std::string who(const Channel& ch, int r) {
  return cat("rank ", r, " (host ", ch.cards[size_t(r)].host, ")");
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// The report: first the peers that never reached this rank's call (the likely culprits),
// then those waiting in it too.
std::string describe(const Channel& ch, const PeerState& me, const std::vector<Answer>& got, double wait_s) {
  std::vector<std::string> elsewhere, silent, with_me;
  for (int r = 0; r < int(got.size()); ++r) {
    if (r == ch.rank) continue;
    const Answer& a = got[size_t(r)];
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.1f", a.state.for_s);
    if (!a.heard) silent.push_back(who(ch, r));
    else if (a.state.in_call && a.state.what == me.what) with_me.push_back(cat(r));
    else if (a.state.in_call)
      elsewhere.push_back(cat(who(ch, r), " is in another call for ", secs, " s: ", a.state.what, " (its call #",
                              a.state.call_no, "; this rank's is #", me.call_no, ")"));
    else
      elsewhere.push_back(cat(who(ch, r), " is in no MPI call (computing, or stuck outside MPI) after its call #",
                              a.state.call_no, "; this rank is in its call #", me.call_no));
  }
  std::ostringstream os;
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.1f", wait_s);
  for (const auto& e : elsewhere) os << "  peer not in this call: " << e << "\n";
  if (!silent.empty())
    os << "  peer(s) not answering the watchdog's status question within " << secs
       << " s (stopped, killed, or their host unreachable): " << join(silent, ", ") << "\n";
  if (!with_me.empty()) os << "  waiting in this call too: rank(s) " << join(with_me, ", ") << "\n";
  if (elsewhere.empty() && silent.empty()) os << "  every peer is in this call too: it stalls inside MPI or the network\n";
  return os.str();
}

}  // namespace

void start_peer_status(MPI_Comm comm, PeerStateFn mine) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size < 2 || g_channel) return;
  Card card;
  card.token = std::random_device{}() * 0x100000001ull + uint64_t(getpid());
  card.rank = rank;
  const int fd = open_udp_socket(&card.port);
  if (fd >= 0) fill_addresses(card);
  std::snprintf(card.host, sizeof card.host, "%s", host_name().c_str());
  auto* ch = new Channel{rank, 0, std::vector<Card>(size_t(size)), mine};
  {
    // A name of its own for the test hooks: a hook counting MPI_Allgather calls keeps its count.
    CallWatch w("MPI_Allgather(peer addresses)", size, int64_t(sizeof card), "bytes");
    if (MPI_Allgather(&card, sizeof card, MPI_BYTE, ch->cards.data(), sizeof card, MPI_BYTE, comm) != MPI_SUCCESS) {
      if (fd >= 0) close(fd);
      delete ch;
      return;  // the job goes on; a stall is then reported without its peers
    }
  }
  ch->token = ch->cards[0].token;
  g_channel = ch;
  if (fd >= 0) std::thread(respond_forever, fd).detach();
}

std::string survey_peers(double wait_s) {
  const Channel* ch = g_channel;
  if (!ch) return "";
  uint16_t port = 0;
  const int fd = open_udp_socket(&port);
  if (fd < 0) return "  (the watchdog could not open a socket to ask the other ranks what they are doing)\n";
  const PeerState me = ch->mine();
  std::vector<Answer> got(ch->cards.size());
  got[size_t(ch->rank)].heard = true;
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(wait_s);
  auto next_ask = start;
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    bool all = true;
    for (const Answer& a : got) all = all && a.heard;
    if (all || now >= deadline) break;
    if (now >= next_ask) {  // asked again every 250 ms: a datagram lost on a lossy link is not a silent peer
      for (int r = 0; r < int(got.size()); ++r)
        if (!got[size_t(r)].heard) ask(fd, *ch, r);
      next_ask = now + std::chrono::milliseconds(250);
    }
    pollfd p{fd, POLLIN, 0};
    poll(&p, 1, 50);
    collect(fd, *ch, got);
  }
  close(fd);
  return describe(*ch, me, got, wait_s);
}

}  // namespace tandem::comm
