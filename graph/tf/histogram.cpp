#include "graph/tf/histogram.hpp"

#include "graph/tf/proto/summary.pb.h"

namespace caflow::tf {

void histogram_to_proto(const histogram& h, tfproto::HistogramProto* out) {
  out->Clear();
  out->set_min(h.min);
  out->set_max(h.max);
  out->set_num(h.num);
  out->set_sum(h.sum);
  out->set_sum_squares(h.sum_squares);
  out->mutable_bucket_limit()->Assign(h.bucket_limit.begin(), h.bucket_limit.end());
  out->mutable_bucket()->Assign(h.bucket.begin(), h.bucket.end());
}

}  // namespace caflow::tf
