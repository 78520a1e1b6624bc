package io.fanout.dist;

import io.fanout.train.GradientReducer;
import java.util.function.Supplier;

/**
 * A {@link MeshAllReduce} that first checks that every replica holds bit-identical parameters: at
 * the start of each step (so after every previous update) and on {@link #verifyNow}. The check
 * costs one 24-byte exchange per step. A divergence fails naming the first differing rank.
 */
public final class VerifyingReducer implements GradientReducer {
  private final MeshAllReduce mesh;
  private final Supplier<float[]> params;
  private long steps;

  /**
   * @param params reads the replica's current parameters to the host (e.g. {@code model::params});
   *     called once per step
   */
  public VerifyingReducer(MeshAllReduce mesh, Supplier<float[]> params) {
    this.mesh = mesh;
    this.params = params;
  }

  @Override
  public void allReduceMean(float[] gradients, int length) {
    verifyNow();
    mesh.allReduceMean(gradients, length);
    steps++;
  }

  @Override
  public void allReduceMean(java.nio.FloatBuffer gradients, int length) {
    verifyNow();
    mesh.allReduceMean(gradients, length);
    steps++;
  }

  /** Compares the parameters' checksum across replicas now; every replica must call it. */
  public void verifyNow() {
    float[] current = params.get();
    long[] all = mesh.allGather(ParameterChecksum.of(current, current.length));
    for (int p = 1; p < all.length; p++) {
      if (all[p] != all[0]) {
        throw new IllegalStateException(
            "replicas diverged after "
                + steps
                + " steps: parameter checksum of rank 0 is "
                + Long.toHexString(all[0])
                + ", of "
                + mesh.describe(p)
                + " "
                + Long.toHexString(all[p])
                + "; replicas must start from the same seed and data");
      }
    }
  }

  @Override
  public int worldSize() {
    return mesh.worldSize();
  }

  @Override
  public int rank() {
    return mesh.rank();
  }

  @Override
  public void close() {
    mesh.close();
  }
}
