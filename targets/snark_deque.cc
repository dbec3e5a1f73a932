#include "targets/snark_deque.h"

namespace linfault::targets {

SnarkDeque::SnarkDeque()
    : dummy_(arena_.make(nullptr, nullptr, 0)), left_hat_(dummy_), right_hat_(dummy_) {
  dummy_->left.value = dummy_;
  dummy_->right.value = dummy_;
}

SnarkDeque::Node* SnarkDeque::load(const Word& word, dpct::SourceLocation where) {
  memory_.load(where);
  std::lock_guard lock(atomicity_);
  return word.value;
}

void SnarkDeque::store(Word& word, Node* value, dpct::SourceLocation where) {
  memory_.fetch_add(1, where);
  std::lock_guard lock(atomicity_);
  word.value = value;
}

bool SnarkDeque::dcas(Word& a, Word& b, Node* old_a, Node* old_b, Node* new_a, Node* new_b,
                      dpct::SourceLocation where) {
  memory_.fetch_add(1, where);
  std::lock_guard lock(atomicity_);
  if (a.value != old_a || b.value != old_b) return false;
  a.value = new_a;
  b.value = new_b;
  return true;
}

void SnarkDeque::push_right(std::int64_t value) {
  Node* node = arena_.make(nullptr, dummy_, value);
  while (true) {
    Node* rh = load(right_hat_);
    Node* rh_right = load(rh->right);
    if (rh_right == rh) {  // right side empty
      store(node->left, dummy_);
      Node* lh = load(left_hat_);
      if (dcas(right_hat_, left_hat_, rh, lh, node, node)) return;
    } else {
      store(node->left, rh);
      if (dcas(right_hat_, rh->right, rh, rh_right, node, node)) return;
    }
  }
}

void SnarkDeque::push_left(std::int64_t value) {
  Node* node = arena_.make(dummy_, nullptr, value);
  while (true) {
    Node* lh = load(left_hat_);
    Node* lh_left = load(lh->left);
    if (lh_left == lh) {  // left side empty
      store(node->right, dummy_);
      Node* rh = load(right_hat_);
      if (dcas(left_hat_, right_hat_, lh, rh, node, node)) return;
    } else {
      store(node->right, lh);
      if (dcas(left_hat_, lh->left, lh, lh_left, node, node)) return;
    }
  }
}

std::vector<std::int64_t> SnarkDeque::state() {
  std::lock_guard lock(atomicity_);
  std::vector<std::int64_t> items;
  Node* const left = left_hat_.value;
  if (left->left.value == left) return items;  // the left hat is dead: empty
  for (Node* node = left;; node = node->right.value) {
    items.push_back(node->value);
    if (node == right_hat_.value) break;
  }
  return items;
}

std::optional<std::int64_t> SnarkDeque::pop_right() {
  while (true) {
    Node* rh = load(right_hat_);
    Node* lh = load(left_hat_);
    if (load(rh->right) == rh) return std::nullopt;
    if (rh == lh) {
      if (dcas(right_hat_, left_hat_, rh, lh, dummy_, dummy_)) return rh->value;
    } else {
      Node* rh_left = load(rh->left);
      // rh.L := rh marks rh dead from the left; a concurrent popLeft holding rh as its hat then
      // sees "empty" (the bug).
      if (dcas(right_hat_, rh->left, rh, rh_left, rh_left, rh)) {
        const std::int64_t result = rh->value;
        store(rh->right, dummy_);
        return result;
      }
    }
  }
}

std::optional<std::int64_t> SnarkDeque::pop_left() {
  while (true) {
    Node* lh = load(left_hat_);
    Node* rh = load(right_hat_);
    if (load(lh->left) == lh) return std::nullopt;
    if (lh == rh) {
      if (dcas(left_hat_, right_hat_, lh, rh, dummy_, dummy_)) return lh->value;
    } else {
      Node* lh_right = load(lh->right);
      if (dcas(left_hat_, lh->right, lh, lh_right, lh_right, lh)) {
        const std::int64_t result = lh->value;
        store(lh->left, dummy_);
        return result;
      }
    }
  }
}

}  // namespace linfault::targets
