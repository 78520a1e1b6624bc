package io.fanout.dist;

import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Data-parallel replicas in one test process: one thread per rank, connected by a {@link
 * MeshAllReduce} on 127.0.0.1.
 */
public final class MeshReplicas {
  /** What one rank runs on its mesh connection. */
  @FunctionalInterface
  public interface Replica<T> {
    T run(MeshAllReduce mesh, int rank) throws Exception;
  }

  private MeshReplicas() {}

  /**
   * Runs {@code replica} on {@code workers} ranks at once, each on its connection to a mesh of
   * {@code meshSeed}, and returns each rank's result in rank order, waiting up to {@code
   * timeoutSeconds} for each; a replica's failure is rethrown (wrapped in its {@link
   * java.util.concurrent.ExecutionException}). The connections and listening sockets are closed.
   */
  public static <T> List<T> run(int workers, long meshSeed, long timeoutSeconds, Replica<T> replica)
      throws Exception {
    List<ServerSocketChannel> servers = new ArrayList<>();
    List<String> eps = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    try {
      for (int r = 0; r < workers; r++) {
        servers.add(MeshAllReduce.listen("127.0.0.1", 0));
        eps.add(MeshAllReduce.endpointOf("127.0.0.1", servers.get(r)));
      }
      List<Future<T>> fs = new ArrayList<>();
      for (int r = 0; r < workers; r++) {
        int rank = r;
        fs.add(
            pool.submit(
                () -> {
                  try (MeshAllReduce mesh =
                      MeshAllReduce.connect(rank, eps, servers.get(rank), meshSeed, 60_000)) {
                    return replica.run(mesh, rank);
                  }
                }));
      }
      List<T> out = new ArrayList<>();
      for (Future<T> f : fs) {
        out.add(f.get(timeoutSeconds, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
      for (ServerSocketChannel s : servers) {
        s.close();
      }
    }
  }
}
