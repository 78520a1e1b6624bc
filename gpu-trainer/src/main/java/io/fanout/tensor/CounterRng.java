package io.fanout.tensor;

import io.fanout.sample.SampleHash;

/**
 * Counter-based random numbers: a value is a pure function of a key and a position, so dropout
 * masks and other random choices depend only on (seed, epoch, batch, layer, position) and never on
 * thread timing or call order.
 */
public final class CounterRng {
  private CounterRng() {}

  /** SplitMix64 finalizer, the same bijective 64-bit mix as the sampler's {@link SampleHash}. */
  public static long mix(long z) {
    return SampleHash.mix(z);
  }

  /** A key derived from a parent key and one more counter. */
  public static long key(long parent, long counter) {
    return mix(parent * 0x9e3779b97f4a7c15L + mix(counter + 0x632be59bd9b4e019L));
  }

  /** A key for (seed, a, b, c). */
  public static long key(long seed, long a, long b, long c) {
    return key(key(key(mix(seed), a), b), c);
  }

  /** A uniform float in {@code [0, 1)} for position {@code i} under {@code key}. */
  public static float uniform(long key, long i) {
    return bits24(key, i) * 0x1.0p-24f;
  }

  /**
   * The 24 random bits behind {@link #uniform}: {@code uniform(key, i) == bits24(key, i) / 2^24}.
   */
  public static long bits24(long key, long i) {
    return mix(key + i * 0x9e3779b97f4a7c15L) >>> 40;
  }
}
