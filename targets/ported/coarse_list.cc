#include "coarse_list.h"

#include <limits>
#include <stdexcept>

namespace ported {
namespace {

constexpr std::int64_t kMinKey = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMaxKey = std::numeric_limits<std::int64_t>::max();

void check_key(std::int64_t key) {
  if (key == kMinKey || key == kMaxKey) {
    throw std::invalid_argument("key " + std::to_string(key) + " is a sentinel of the list");
  }
}

}  // namespace

CoarseList::CoarseList() : head_(pool_.make(kMinKey, pool_.make(kMaxKey, nullptr))) {}

bool CoarseList::add(std::int64_t key) {
  check_key(key);
  Node* pred = head_;
  Node* curr = pred->next.load();
  while (curr->key < key) {  // without the lock: the window may be stale once locked
    pred = curr;
    curr = curr->next.load();
  }
  std::lock_guard<std::mutex> guard(lock_);
  if (curr->key == key) return false;
  pred->next.store(pool_.make(key, curr));
  return true;
}

bool CoarseList::remove(std::int64_t key) {
  check_key(key);
  std::lock_guard<std::mutex> guard(lock_);
  Node* pred = head_;
  Node* curr = pred->next.load();
  while (curr->key < key) {
    pred = curr;
    curr = curr->next.load();
  }
  if (curr->key != key) return false;
  pred->next.store(curr->next.load());
  return true;
}

bool CoarseList::contains(std::int64_t key) {
  check_key(key);
  std::lock_guard<std::mutex> guard(lock_);
  Node* curr = head_->next.load();
  while (curr->key < key) curr = curr->next.load();
  return curr->key == key;
}

}  // namespace ported
