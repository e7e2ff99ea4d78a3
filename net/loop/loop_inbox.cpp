#include "net/loop/loop_inbox.hpp"

#include <caf/resumable.hpp>

namespace caflow {
namespace {

// Reverses a list taken from the inbox's head into the order its jobs were pushed.
template <class Node>
Node* oldest_first(Node* latest) {
  Node* oldest = nullptr;
  while (latest) {
    Node* next = latest->next;
    latest->next = oldest;
    oldest = latest;
    latest = next;
  }
  return oldest;
}

}  // namespace

loop_inbox::~loop_inbox() {
  node* n = head_.exchange(nullptr);
  while (n) {
    node* next = n->next;
    caf::intrusive_ptr_release(n->job);
    delete n;
    n = next;
  }
}

bool loop_inbox::push(caf::resumable* job) {
  node* n = new node{job, head_.load(std::memory_order_relaxed)};
  while (!head_.compare_exchange_weak(n->next, n, std::memory_order_seq_cst,
                                      std::memory_order_relaxed)) {
  }
  if (polling_.load(std::memory_order_seq_cst)) return false;
  return !wake_posted_.exchange(true, std::memory_order_seq_cst);
}

loop_polled::result loop_inbox::poll() {
  if (!head_.load(std::memory_order_relaxed) && polling_.load(std::memory_order_relaxed))
    return result::idle;  // the common case: one load, no read-modify-write
  node* n = oldest_first(head_.exchange(nullptr, std::memory_order_seq_cst));
  if (!n) return result::idle;
  while (n) {
    node* next = n->next;
    caf::resumable* job = n->job;
    delete n;
    run_(job);
    n = next;
  }
  return result::worked;
}

}  // namespace caflow
