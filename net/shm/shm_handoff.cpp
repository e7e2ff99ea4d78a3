#include "net/shm/shm_handoff.hpp"

#include <dirent.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <vector>

#include "net/shm/shm_handshake.hpp"

namespace caflow {
namespace {

status_or<sockaddr_un> unix_address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path)
    return errors::invalid_argument("shm socket path '", path, "' is empty or longer than ",
                                    sizeof addr.sun_path - 1, " bytes");
  std::memcpy(addr.sun_path, path.data(), path.size());
  return addr;
}

// Non-blocking: every read and write on it waits in poll, with a deadline (net/unix_io.hpp).
status_or<socket_fd> unix_socket(const std::string& path) {
  socket_fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!s.valid())
    return errors::internal("socket(AF_UNIX) for '", path, "' failed: ", std::strerror(errno));
  return s;
}

// A listener's socket is `socket_name` in a fresh directory named listener_prefix + 6 letters.
constexpr std::string_view listener_prefix = "caflow-shm-";
constexpr std::string_view socket_name = "/s";

// The paths of the Unix sockets bound in this network namespace.
std::unordered_set<std::string> bound_unix_paths() {
  std::unordered_set<std::string> paths;
  std::ifstream table("/proc/net/unix");
  std::string line;
  std::getline(table, line);  // the header
  while (std::getline(table, line)) {
    // Num RefCount Protocol Flags Type St Inode [Path]
    std::istringstream fields(line);
    std::string field, path;
    for (int i = 0; i < 7; ++i) fields >> field;
    if (fields >> path) paths.insert(path);
  }
  return paths;
}

// Whether a connection to the socket at `path` is refused: nobody listens there.
bool refuses_connections(const std::string& path) {
  auto addr = unix_address(path);
  auto s = unix_socket(path);
  if (!addr.ok() || !s.ok()) return false;
  return ::connect(s->get(), reinterpret_cast<const sockaddr*>(&*addr), sizeof *addr) != 0 &&
         errno == ECONNREFUSED;
}

// Whether the file was last modified a minute ago or earlier (for a socket: when it was bound).
bool a_minute_old(const struct stat& st) {
  return std::chrono::system_clock::now() - std::chrono::system_clock::from_time_t(st.st_mtime) >
         std::chrono::minutes(1);
}

std::string listener_base() {
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  return runtime && *runtime ? runtime : "/tmp";
}

}  // namespace

int sweep_stale_shm_listeners(const std::string& base) {
  DIR* d = ::opendir(base.c_str());
  if (!d) return 0;
  std::vector<std::string> candidates;
  while (const dirent* e = ::readdir(d))
    if (std::string_view(e->d_name).starts_with(listener_prefix))
      candidates.push_back(base + "/" + e->d_name);
  ::closedir(d);
  if (candidates.empty()) return 0;
  const std::unordered_set<std::string> bound = bound_unix_paths();
  const uid_t me = ::geteuid();
  int removed = 0;
  for (const std::string& dir : candidates) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != me) continue;
    const std::string socket_path = dir + std::string(socket_name);
    const bool dir_is_old = a_minute_old(st);
    if (::lstat(socket_path.c_str(), &st) != 0) {
      // Empty: a listener killed between mkdtemp and bind, or between unlink and rmdir. One a
      // minute old is not about to bind (rmdir fails, harmlessly, if it is not empty).
      if (errno == ENOENT && dir_is_old && ::rmdir(dir.c_str()) == 0) ++removed;
      continue;
    }
    // A young socket may belong to a listener that bound after /proc/net/unix was read and is
    // about to listen: it refuses connections for that moment, and is not dead.
    if (!S_ISSOCK(st.st_mode) || st.st_uid != me || !a_minute_old(st)) continue;
    if (bound.count(socket_path) || !refuses_connections(socket_path)) continue;
    // rmdir fails, harmlessly, if the directory holds anything else.
    if (::unlink(socket_path.c_str()) == 0 && ::rmdir(dir.c_str()) == 0) ++removed;
  }
  return removed;
}

bool plausible_shm_listener(const std::string& path) {
  if (!path.ends_with(socket_name)) return false;
  const std::string dir = path.substr(0, path.size() - socket_name.size());
  const auto slash = dir.rfind('/');
  if (slash == std::string::npos ||
      !std::string_view(dir).substr(slash + 1).starts_with(listener_prefix))
    return false;
  struct stat d {}, s{};
  if (::lstat(dir.c_str(), &d) != 0 || !S_ISDIR(d.st_mode) || d.st_uid != ::geteuid() ||
      (d.st_mode & 077) != 0)
    return false;
  return ::lstat(path.c_str(), &s) == 0 && S_ISSOCK(s.st_mode) && s.st_uid == ::geteuid();
}

status_or<shm_listener> shm_listener::open() {
  const std::string base = listener_base();
  sweep_stale_shm_listeners(base);
  std::string dir = base + "/" + std::string(listener_prefix) + "XXXXXX";
  // mkdtemp creates the directory with mode 0700: no other uid can reach what is inside.
  if (!::mkdtemp(dir.data()))
    return errors::internal("mkdtemp(", dir, ") failed: ", std::strerror(errno));
  std::string path = dir + std::string(socket_name);
  auto fail = [&](status st) {
    ::unlink(path.c_str());
    ::rmdir(dir.c_str());
    return st;
  };
  auto addr = unix_address(path);
  if (!addr.ok()) return fail(addr.get_status());
  auto s = unix_socket(path);
  if (!s.ok()) return fail(s.get_status());
  if (::bind(s->get(), reinterpret_cast<const sockaddr*>(&*addr), sizeof *addr) != 0)
    return fail(errors::internal("bind(", path, ") failed: ", std::strerror(errno)));
  if (::listen(s->get(), 64) != 0)
    return fail(errors::internal("listen(", path, ") failed: ", std::strerror(errno)));
  return shm_listener(std::move(s).value(), std::move(dir), std::move(path));
}

shm_listener::shm_listener(shm_listener&& other) noexcept
    : socket_(std::move(other.socket_)),
      dir_(std::exchange(other.dir_, {})),
      path_(std::exchange(other.path_, {})) {}

shm_listener::~shm_listener() {
  if (dir_.empty()) return;
  socket_ = socket_fd();
  ::unlink(path_.c_str());
  ::rmdir(dir_.c_str());
}

status_or<shm_channel> shm_listener::accept(std::string_view secret,
                                            std::chrono::milliseconds patience) {
  const io_deadline until = std::chrono::steady_clock::now() + patience;
  socket_fd peer;
  while (!peer.valid()) {
    CAFLOW_RETURN_IF_ERROR(
        wait_readable_until(socket_, until, "a connection to the shm listener"));
    peer = socket_fd(::accept4(socket_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    // A connection that went away between poll and accept: wait for the next one.
    if (!peer.valid() && errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
      return errors::unavailable("accept(", path_, ") failed: ", std::strerror(errno));
  }
  CAFLOW_RETURN_IF_ERROR(shm_handshake_as_listener(peer, secret, until));
  return shm_channel(std::move(peer));
}

status_or<shm_channel> shm_connect(const std::string& path, std::string_view secret,
                                   std::chrono::milliseconds patience) {
  const io_deadline until = std::chrono::steady_clock::now() + patience;
  CAFLOW_ASSIGN_OR_RETURN(sockaddr_un addr, unix_address(path));
  CAFLOW_ASSIGN_OR_RETURN(socket_fd s, unix_socket(path));
  // A Unix socket's connect completes at once, unless the listener's backlog is full: then a
  // blocking connect would wait for as long as the listener does not accept, so the socket is
  // non-blocking (all I/O on it polls anyway) and a full backlog is retried until the deadline.
  for (;;) {
    if (::connect(s.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) break;
    if (errno == EINTR) continue;
    if (errno != EAGAIN)
      return errors::unavailable("no shm listener at '", path, "': connect failed: ",
                                 std::strerror(errno));
    if (std::chrono::steady_clock::now() >= until)
      return errors::deadline_exceeded("timed out connecting to the shm listener at '", path,
                                       "': its backlog stayed full");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CAFLOW_RETURN_IF_ERROR(shm_handshake_as_connector(s, secret, until));
  return shm_channel(std::move(s));
}

}  // namespace caflow
