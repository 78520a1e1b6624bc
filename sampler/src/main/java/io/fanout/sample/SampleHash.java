package io.fanout.sample;

/**
 * The counter-based hash behind every random choice of the sampler: SplitMix64's finalizer applied
 * to a key derived from (seed, epoch, batch, hop, node, position). No state, so the same choice
 * comes out whatever thread, task or execution mode asks for it.
 */
public final class SampleHash {
  private SampleHash() {}

  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  /** SplitMix64's output function: a bijective 64-bit mix. */
  public static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** The key of one epoch of a run. */
  public static long epochKey(long seed, int epoch) {
    return mix(mix(seed) + GOLDEN * (epoch + 1L));
  }

  /** The key of one mini-batch of an epoch. */
  public static long batchKey(long epochKey, int batch) {
    return mix(epochKey ^ mix(0x6A09E667F3BCC909L + GOLDEN * (batch + 1L)));
  }

  /**
   * The key of relation {@code relation} within a batch of a typed graph: the batch key its {@link
   * #nodeKey}s are derived from, so a node sampled over two relations draws independently.
   */
  public static long relationKey(long batchKey, int relation) {
    return mix(batchKey ^ mix(0xBB67AE8584CAA73BL + GOLDEN * (relation + 1L)));
  }

  /** The key of sampling {@code node}'s neighbors at hop {@code hop} (1-based) of a batch. */
  public static long nodeKey(long batchKey, int hop, int node) {
    return mix(batchKey ^ mix(((long) hop << 32 | (node & 0xFFFFFFFFL)) * GOLDEN + 1));
  }

  /** The random word for draw {@code position} under {@code key}. */
  public static long draw(long key, long position) {
    return mix(key + GOLDEN * (position + 1));
  }

  /** A uniform integer in {@code [0, bound)} from a random word (bias below bound / 2^64). */
  public static int bounded(long word, int bound) {
    // Unsigned high 64 bits of word * bound, for bound >= 0.
    return (int) (Math.multiplyHigh(word, bound) + ((word >> 63) & bound));
  }
}
