package io.fanout.train.typed;

import io.fanout.sample.TypedMiniBatch;
import io.fanout.shard.KeptRows;
import io.fanout.shard.TypedShardSet;
import io.fanout.tensor.CounterRng;
import io.fanout.train.TrainSpec;
import io.fanout.train.WorkerShare;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.IntPredicate;

/** The training batches of each epoch: sampled as they are needed, or read from typed shards. */
@FunctionalInterface
public interface TypedEpochs {
  /** The batches of epoch {@code epoch}, in batch order. */
  Iterator<TypedMiniBatch> epoch(int epoch);

  /**
   * The number of batches of epoch {@code epoch}, or -1 when it is not known before reading it
   * (then {@link #share} cannot select a worker's batches).
   */
  default int batches(int epoch) {
    return -1;
  }

  /**
   * The batches of epoch {@code epoch} whose index {@code keep} accepts, in batch order. Sources
   * that can skip a batch before sampling or decoding it override this; the default reads every
   * batch and drops the others.
   */
  default Iterator<TypedMiniBatch> epoch(int epoch, IntPredicate keep) {
    return new KeptRows<>(epoch(epoch), TypedMiniBatch::batch, keep);
  }

  /**
   * The batches of epoch {@code epoch} whose index {@code keep} accepts, each with its input rows
   * ({@code features} prepares it), in batch order; the caller closes the stream. The default reads
   * and gathers each batch on the caller's thread when the step asks for it; typed shards read with
   * a loader prepare them ahead on loader threads ({@link #shards(TypedShardSet, boolean,
   * TrainSpec.Loading)}).
   */
  default TypedBatchStream inputs(int epoch, IntPredicate keep, TypedInputs.Preparer features) {
    Iterator<TypedMiniBatch> it = epoch(epoch, keep);
    return () -> {
      if (!it.hasNext()) {
        return null;
      }
      TypedInputs in = TypedInputs.of(it.next(), null);
      features.prepare(in);
      return in;
    };
  }

  /**
   * One data-parallel worker's batches of each epoch ({@link WorkerShare}, the one-type trainer's
   * rule): only those are sampled or decoded. {@link WorkerShare#ALL} gives this source itself.
   */
  default TypedEpochs share(WorkerShare share) {
    if (share.workers() == 1) {
      return this;
    }
    TypedEpochs all = this;
    return new TypedEpochs() {
      @Override
      public Iterator<TypedMiniBatch> epoch(int epoch) {
        int total = all.batches(epoch);
        if (total < 0) {
          throw new IllegalStateException(
              "the batch count of epoch " + epoch + " is not known: it cannot be shared");
        }
        return all.epoch(epoch, share.keeps(total));
      }

      @Override
      public TypedBatchStream inputs(int epoch, IntPredicate keep, TypedInputs.Preparer features) {
        int total = all.batches(epoch);
        if (total < 0) {
          throw new IllegalStateException(
              "the batch count of epoch " + epoch + " is not known: it cannot be shared");
        }
        IntPredicate mine = share.keeps(total);
        return all.inputs(epoch, b -> mine.test(b) && keep.test(b), features);
      }

      @Override
      public int batches(int epoch) {
        int total = all.batches(epoch);
        return total < 0 ? -1 : share.steps(total);
      }
    };
  }

  /**
   * Batches of {@code batchSize} seeds drawn by {@code sampler} from {@code seeds}, shuffled per
   * epoch by a Fisher-Yates shuffle keyed by (seed, epoch).
   */
  static TypedEpochs sampled(TypedSampler sampler, int[] seeds, int batchSize, long seed) {
    return new TypedEpochs() {
      @Override
      public Iterator<TypedMiniBatch> epoch(int epoch) {
        return epoch(epoch, b -> true);
      }

      @Override
      public int batches(int epoch) {
        return (int) ((seeds.length + (long) batchSize - 1) / batchSize);
      }

      @Override
      public Iterator<TypedMiniBatch> epoch(int epoch, IntPredicate keep) {
        int[] s = seeds.clone();
        long key = CounterRng.key(seed, 0x5EED, epoch, 0);
        for (int i = s.length - 1; i > 0; i--) {
          int j = (int) (CounterRng.uniform(key, i) * (i + 1));
          int t = s[i];
          s[i] = s[j];
          s[j] = t;
        }
        int total = batches(epoch);
        return new Iterator<>() {
          private int batch = skip(0);

          private int skip(int b) {
            while (b < total && !keep.test(b)) {
              b++;
            }
            return b;
          }

          @Override
          public boolean hasNext() {
            return batch < total;
          }

          @Override
          public TypedMiniBatch next() {
            if (!hasNext()) {
              throw new NoSuchElementException();
            }
            int at = batch * batchSize;
            int[] part = java.util.Arrays.copyOfRange(s, at, Math.min(s.length, at + batchSize));
            TypedMiniBatch b = sampler.sample(epoch, batch, part);
            batch = skip(batch + 1);
            return b;
          }
        };
      }
    };
  }

  /**
   * The batches of typed shards: epoch {@code e} reads sampled epoch {@code e mod E}; a worker's
   * share skips the others' batches before decoding them. Read and gathered on the step's thread.
   */
  static TypedEpochs shards(TypedShardSet set, boolean verify) {
    return shards(set, verify, null);
  }

  /**
   * As {@link #shards(TypedShardSet, boolean)}; with {@code loading} (not null) the batches and
   * their input rows are prepared ahead of the step by a {@link TypedShardLoader} of {@code
   * loading.loaderThreads()} threads, {@code loading.prefetch()} batches each.
   */
  static TypedEpochs shards(TypedShardSet set, boolean verify, TrainSpec.Loading loading) {
    return new TypedEpochs() {
      @Override
      public TypedBatchStream inputs(int epoch, IntPredicate keep, TypedInputs.Preparer features) {
        return loading == null
            ? TypedEpochs.super.inputs(epoch, keep, features)
            : new TypedShardLoader(set, epoch, verify, keep, features, loading);
      }

      @Override
      public Iterator<TypedMiniBatch> epoch(int epoch) {
        return set.batches(epoch, verify);
      }

      @Override
      public int batches(int epoch) {
        return set.manifest().batchesPerEpoch;
      }

      @Override
      public Iterator<TypedMiniBatch> epoch(int epoch, IntPredicate keep) {
        return set.batches(epoch, verify, keep);
      }
    };
  }
}
