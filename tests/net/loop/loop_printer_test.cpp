// The printer behind caf::aout on a loop scheduler (net/loop/loop_printer.hpp): lines an actor
// writes, and those CAF's default handlers write, arrive whole where a redirect sends them.
#include <doctest/doctest.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>

#include "test_util/loop_config.hpp"

using namespace caflow;
using namespace std::chrono_literals;

namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// What `path` holds once it holds `needle`, or after 10 s.
std::string wait_for_text(const std::filesystem::path& p, const std::string& needle) {
  for (auto until = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < until;
       std::this_thread::sleep_for(10ms))
    if (read_file(p).find(needle) != std::string::npos) break;
  return read_file(p);
}

caf::behavior writer(caf::event_based_actor* self) {
  return {
      [self](const std::string& text) {
        // Two pieces: the printer keeps a line until its newline.
        caf::aout(self) << text << " first half, ";
        caf::aout(self) << "second half" << std::endl;
      },
  };
}

}  // namespace

TEST_CASE("aout on the network loop: lines arrive whole at the redirect, CAF's own included") {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("caflow_printer_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto all = dir / "all.txt";
  const auto own = dir / "own.txt";
  {
    caflow::testing::loop_config cfg{0us};
    caf::actor_system sys{cfg};
    caf::actor_ostream::redirect_all(sys, all.string());
    auto a = sys.spawn(writer);
    caf::anon_send(a, std::string("line"));
    CHECK(wait_for_text(all, "second half") == "line first half, second half\n");

    // An actor of its own redirect writes there; CAF's default handler for a message nobody
    // handles writes through the printer too.
    auto b = sys.spawn(writer);
    caf::actor_ostream::redirect(caf::actor_cast<caf::abstract_actor*>(b), own.string(), 0);
    caf::anon_send(b, std::string("own"));
    CHECK(wait_for_text(own, "second half") == "own first half, second half\n");
    caf::anon_send(a, 42);
    CHECK(wait_for_text(all, "unexpected message").find("*** unexpected message") !=
          std::string::npos);
    caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(b, caf::exit_reason::user_shutdown);
  }
  std::filesystem::remove_all(dir);
}
