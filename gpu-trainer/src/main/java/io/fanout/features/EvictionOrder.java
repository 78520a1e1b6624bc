package io.fanout.features;

/**
 * The order in which a {@link RowCache} gives up its slots: each held slot has a key, and the slot
 * with the largest key goes first. Keys are distinct except {@link #NEVER}.
 */
interface EvictionOrder {
  /** The key of a row not used again in sight: evicted before any other. */
  long NEVER = Long.MAX_VALUE;

  /** Holds {@code slot} with {@code key}, or changes its key. */
  void set(int slot, long key);

  /** The slot to evict next: the one with the largest key. At least one slot must be held. */
  int top();

  /** The key of held {@code slot}. */
  long key(int slot);
}
