package io.fanout.jobs.train;

import io.fanout.dist.ReducerDecorator;
import io.fanout.train.GradientReducer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Fault injection for the multi-executor training tests, installed through {@code
 * spark.fanout.hooks.reducer-decorator}: if the model dir holds {@value #FILE} with the text {@code
 * "RANK STEPS"}, the worker of that rank exits its JVM ({@code Runtime.halt}) right after its
 * STEPS-th gradient exchange. The file is renamed to {@code <file>.fired} first, so the fault fires
 * once even though the retried stage runs the same code. Without the file it changes nothing.
 */
public final class ExitOnceAfterSteps implements ReducerDecorator {
  public static final String FILE = "_test-exit-once";

  @Override
  public GradientReducer decorate(GradientReducer r, Path modelDir) {
    Path f = modelDir.resolve(FILE);
    if (!Files.isRegularFile(f)) {
      return r;
    }
    String[] spec;
    try {
      spec = Files.readString(f, StandardCharsets.UTF_8).trim().split("\\s+");
    } catch (IOException e) {
      return r;
    }
    int rank = Integer.parseInt(spec[0]);
    long steps = Long.parseLong(spec[1]);
    if (rank != r.rank()) {
      return r;
    }
    return new GradientReducer() {
      long done;

      @Override
      public void allReduceMean(float[] gradients, int length) {
        r.allReduceMean(gradients, length);
        if (++done == steps) {
          try {
            Files.move(f, f.resolveSibling(FILE + ".fired"), StandardCopyOption.ATOMIC_MOVE);
          } catch (IOException e) {
            return; // already fired
          }
          Runtime.getRuntime().halt(17);
        }
      }

      @Override
      public int worldSize() {
        return r.worldSize();
      }

      @Override
      public int rank() {
        return r.rank();
      }

      @Override
      public void close() {
        r.close();
      }
    };
  }
}
