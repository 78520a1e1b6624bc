package io.fanout.train;

/**
 * The candidate pairs of {@code infer --task link --pairs}, in the input's row order, handed over
 * in chunks of bounded size, so that a pairs table of any size is scored in bounded memory. Every
 * {@link #forEach} reads them again from the first pair.
 */
public interface CandidatePairChunks extends AutoCloseable {
  /** One chunk: its pairs, the first of them pair {@code first} of the input. */
  interface Chunk {
    void accept(long first, CandidatePairs pairs);
  }

  /** Pairs in all. */
  long size();

  /**
   * Hands every chunk to {@code chunk}, in order; at least one (an empty input gives one empty
   * chunk, which still says the ids' type).
   */
  void forEach(Chunk chunk);

  /** Releases what the chunks are read from. */
  @Override
  default void close() {}

  /** The pairs {@code pairs} as one chunk. */
  static CandidatePairChunks of(CandidatePairs pairs) {
    return new CandidatePairChunks() {
      @Override
      public long size() {
        return pairs.size();
      }

      @Override
      public void forEach(Chunk chunk) {
        chunk.accept(0, pairs);
      }
    };
  }
}
