// The peer's clock offset comes from the round trip with the shortest delay.
#include "actors/admin/clock_alignment.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace caflow;

TEST_CASE("the offset is the midpoint of the shortest round trip") {
  // The peer's clock runs 1000 us behind ours. A long round trip whose answer left early (a big
  // reply queued behind it) would put it 4000 us behind; the short one says 1000.
  const std::vector<clock_sample> samples = {
      {.sent_us = 10'000, .peer_us = 9'100, .received_us = 18'000},   // 8000 us: midpoint 14000
      {.sent_us = 20'000, .peer_us = 19'050, .received_us = 20'100},  // 100 us: the one kept
      {.sent_us = 30'000, .peer_us = 29'300, .received_us = 30'600},  // 600 us
  };
  REQUIRE(clock_offset_us(samples).has_value());
  CHECK(*clock_offset_us(samples) == 20'050 - 19'050);
  // Order does not matter.
  const std::vector<clock_sample> reversed(samples.rbegin(), samples.rend());
  CHECK(*clock_offset_us(reversed) == 1000);
}

TEST_CASE("no samples, or only ones whose clock ran backwards, give no offset") {
  CHECK_FALSE(clock_offset_us({}).has_value());
  const std::vector<clock_sample> backwards = {{.sent_us = 50, .peer_us = 7, .received_us = 40}};
  CHECK_FALSE(clock_offset_us(backwards).has_value());
  // A peer ahead of us gives a negative offset.
  const std::vector<clock_sample> ahead = {{.sent_us = 100, .peer_us = 5'100, .received_us = 120}};
  CHECK(*clock_offset_us(ahead) == -4'990);
}

TEST_CASE("this machine's clock domain is its boot id, the same on every call") {
  const std::string& domain = local_clock_domain();
  CHECK((domain.rfind("boot:", 0) == 0 || domain.rfind("host:", 0) == 0));
  CHECK(domain.size() > 5);
  CHECK(&local_clock_domain() == &domain);
}
