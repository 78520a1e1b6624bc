package io.fanout.train.typed;

import io.fanout.shard.EncodedTypedBatch;
import io.fanout.shard.TypedShardSet;
import io.fanout.store.InvalidInputException;
import io.fanout.train.PartPipeline;
import io.fanout.train.TrainSpec;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * The pipelined loader of typed shards ({@code --loader-threads}, {@code --prefetch}): one epoch's
 * part files are read on loader threads (part {@code p} by thread {@code p mod threads}, as the
 * one-type loader's {@link PartPipeline}), and each row is decoded and its per-type feature rows
 * gathered on a pool of as many fill threads, up to {@code prefetch + 1} batches ahead per loader
 * thread. The step takes the batches in batch order whatever the timing, and each is prepared as
 * the caller's thread would, so the model does not depend on the thread count or the prefetch.
 *
 * <p>A failure reading, decoding or gathering a batch is rethrown by {@link #next}, naming the part
 * file and the batch; {@link #close} stops and joins every thread.
 */
final class TypedShardLoader implements TypedBatchStream {
  private final PartPipeline<EncodedTypedBatch, TypedInputs> pipeline;

  /**
   * @param keep the batch indices to load (the others are skipped before they are decoded)
   * @param features prepares a batch's input rows (called on the fill threads)
   */
  TypedShardLoader(
      TypedShardSet set,
      int epoch,
      boolean verify,
      IntPredicate keep,
      TypedInputs.Preparer features,
      TrainSpec.Loading loading) {
    List<PartPipeline.Part<EncodedTypedBatch>> parts = new ArrayList<>();
    for (int p = 0; p < set.parts(epoch); p++) {
      int part = p;
      parts.add(
          new PartPipeline.Part<>() {
            @Override
            public Iterator<EncodedTypedBatch> open() {
              try {
                return named(set.encoded(epoch, part, verify, keep), name());
              } catch (RuntimeException e) {
                throw named(e, name(), "");
              }
            }

            @Override
            public String name() {
              return set.file(epoch, part).toString();
            }
          });
    }
    this.pipeline =
        new PartPipeline<>(
            parts,
            loading.loaderThreads(),
            loading.prefetch(),
            TypedInputs::new,
            in -> in.owner,
            (in, row, part) -> {
              try {
                in.batch = set.decode(row);
                features.prepare(in);
              } catch (RuntimeException e) {
                throw named(e, part.name(), ": batch " + row.batch());
              }
            },
            true,
            "fanout-typed");
  }

  /**
   * {@code e}, or, when its message does not name part file {@code file}, an error that does (and
   * {@code what}: the batch, or "").
   */
  private static RuntimeException named(RuntimeException e, String file, String what) {
    String m = e.getMessage();
    return m != null && m.contains(file) ? e : new InvalidInputException(file + what + ": " + m, e);
  }

  /** The rows of {@code rows}, whose failures name the part file {@code name}; closes it. */
  private static Iterator<EncodedTypedBatch> named(Iterator<EncodedTypedBatch> rows, String name) {
    return new NamedRows(rows, name);
  }

  private record NamedRows(Iterator<EncodedTypedBatch> rows, String name)
      implements Iterator<EncodedTypedBatch>, AutoCloseable {
    @Override
    public boolean hasNext() {
      return named(rows::hasNext);
    }

    @Override
    public EncodedTypedBatch next() {
      return named(rows::next);
    }

    /** {@code read}'s result, its failure naming the part file. */
    private <T> T named(java.util.function.Supplier<T> read) {
      try {
        return read.get();
      } catch (RuntimeException e) {
        throw TypedShardLoader.named(e, name, "");
      }
    }

    @Override
    public void close() throws Exception {
      ((AutoCloseable) rows).close();
    }
  }

  @Override
  public TypedInputs next() {
    return pipeline.next(true);
  }

  @Override
  public void recycle(TypedInputs in) {
    in.clear();
    pipeline.recycle(in);
  }

  @Override
  public long waitNanos() {
    return pipeline.waitNanos();
  }

  @Override
  public void close() {
    pipeline.close();
  }
}
