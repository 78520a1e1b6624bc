package io.fanout.train.typed;

import io.fanout.sample.TypedMiniBatch;
import io.fanout.shard.TypedShardSet;
import io.fanout.tensor.CounterRng;
import java.util.Iterator;
import java.util.NoSuchElementException;

/** The training batches of each epoch: sampled as they are needed, or read from typed shards. */
@FunctionalInterface
public interface TypedEpochs {
  /** The batches of epoch {@code epoch}, in batch order. */
  Iterator<TypedMiniBatch> epoch(int epoch);

  /**
   * Batches of {@code batchSize} seeds drawn by {@code sampler} from {@code seeds}, shuffled per
   * epoch by a Fisher-Yates shuffle keyed by (seed, epoch).
   */
  static TypedEpochs sampled(TypedSampler sampler, int[] seeds, int batchSize, long seed) {
    return epoch -> {
      int[] s = seeds.clone();
      long key = CounterRng.key(seed, 0x5EED, epoch, 0);
      for (int i = s.length - 1; i > 0; i--) {
        int j = (int) (CounterRng.uniform(key, i) * (i + 1));
        int t = s[i];
        s[i] = s[j];
        s[j] = t;
      }
      return new Iterator<>() {
        private int at;
        private int batch;

        @Override
        public boolean hasNext() {
          return at < s.length;
        }

        @Override
        public TypedMiniBatch next() {
          if (!hasNext()) {
            throw new NoSuchElementException();
          }
          int[] part = java.util.Arrays.copyOfRange(s, at, Math.min(s.length, at + batchSize));
          at += batchSize;
          return sampler.sample(epoch, batch++, part);
        }
      };
    };
  }

  /** The batches of typed shards: epoch {@code e} reads sampled epoch {@code e mod E}. */
  static TypedEpochs shards(TypedShardSet set, boolean verify) {
    return epoch -> set.batches(epoch, verify);
  }
}
