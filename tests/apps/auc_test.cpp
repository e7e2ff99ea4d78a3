// roc_auc (apps/train/auc.hpp) on cases worked out by hand, ties included, and its errors.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "apps/train/auc.hpp"

using caflow::train_app::roc_auc;

namespace {

double auc(const std::vector<float>& scores, const std::vector<int32_t>& labels) {
  auto a = roc_auc(scores, labels);
  REQUIRE_MESSAGE(a.ok(), a.get_status().to_string());
  return *a;
}

std::string error_of(const std::vector<float>& scores, const std::vector<int32_t>& labels) {
  auto a = roc_auc(scores, labels);
  REQUIRE_FALSE(a.ok());
  return a.get_status().message();
}

}  // namespace

TEST_CASE("roc_auc: the fraction of positive-negative pairs ranked right") {
  // Positives 0.35 and 0.8, negatives 0.1 and 0.4: 0.35 beats 0.1 only, 0.8 beats both: 3/4.
  CHECK(auc({0.1f, 0.4f, 0.35f, 0.8f}, {0, 0, 1, 1}) == doctest::Approx(0.75));
  CHECK(auc({0.1f, 0.2f, 0.8f, 0.9f}, {0, 0, 1, 1}) == doctest::Approx(1.0));
  CHECK(auc({0.9f, 0.8f, 0.2f, 0.1f}, {0, 0, 1, 1}) == doctest::Approx(0.0));
  // The order of the examples does not matter, only scores and labels.
  CHECK(auc({0.8f, 0.1f, 0.35f, 0.4f}, {1, 0, 1, 0}) == doctest::Approx(0.75));
  // 3 positives, 2 negatives: 0.3 > 0.2 (1 win), 0.6 > both (2), 0.1 > none: 3 of 6 pairs.
  CHECK(auc({0.3f, 0.6f, 0.1f, 0.2f, 0.5f}, {1, 1, 1, 0, 0}) == doctest::Approx(0.5));
}

TEST_CASE("roc_auc: a tied positive-negative pair counts one half") {
  // Positives 0.5 and 0.9, negatives 0.5 and 0.2: pairs 0.5/0.5 (tie: 1/2), 0.5/0.2, 0.9/0.5,
  // 0.9/0.2 (wins): 3.5 of 4.
  CHECK(auc({0.5f, 0.5f, 0.2f, 0.9f}, {1, 0, 0, 1}) == doctest::Approx(0.875));
  // Every score equal: every pair a tie.
  CHECK(auc({0.3f, 0.3f, 0.3f, 0.3f, 0.3f}, {1, 0, 0, 1, 0}) == doctest::Approx(0.5));
  // A run of three ties across both classes: positives {0.7, 0.7}, negatives {0.7, 0.1}:
  // 0.7/0.7 twice (1/2 each), 0.7/0.1 twice (wins): 3 of 4.
  CHECK(auc({0.7f, 0.7f, 0.7f, 0.1f}, {1, 1, 0, 0}) == doctest::Approx(0.75));
}

TEST_CASE("roc_auc: bad input is an error naming the problem") {
  CHECK(error_of({0.1f, 0.2f}, {1}).find("2 scores but 1 labels") != std::string::npos);
  CHECK(error_of({0.1f, 0.2f}, {1, 2}).find("label 1 is 2, not 0 or 1") != std::string::npos);
  CHECK(error_of({0.1f, 0.2f}, {1, 1}).find("needs both classes") != std::string::npos);
  CHECK(error_of({}, {}).find("needs both classes") != std::string::npos);
  CHECK(error_of({0.1f, std::nanf("")}, {0, 1}).find("score 1 is NaN") != std::string::npos);
}
