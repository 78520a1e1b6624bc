package io.fanout.bench.dist;

import io.fanout.dist.MeshAllReduce;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Measurements for {@code bin/fanout bench-allreduce}: all-reduce time of {@link MeshAllReduce}
 * between in-process ranks on loopback, and the raw loopback TCP throughput it is compared with.
 */
final class AllReduceBench {
  private AllReduceBench() {}

  /** Best-of-{@code repeats} seconds of one all-reduce of {@code floats} on {@code ranks}. */
  static double allReduceSeconds(int ranks, int floats, int repeats, long timeoutMillis)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(ranks);
    List<ServerSocketChannel> servers = new ArrayList<>();
    try {
      List<String> eps = new ArrayList<>();
      for (int r = 0; r < ranks; r++) {
        ServerSocketChannel s = MeshAllReduce.listen("127.0.0.1", 0);
        servers.add(s);
        eps.add(MeshAllReduce.endpointOf("127.0.0.1", s));
      }
      List<Future<Double>> fs = new ArrayList<>();
      for (int r = 0; r < ranks; r++) {
        int rank = r;
        fs.add(
            pool.submit(
                () -> {
                  float[] g = new float[floats];
                  for (int i = 0; i < floats; i++) {
                    g[i] = (i % 1000) * 0.001f + rank;
                  }
                  double best = Double.MAX_VALUE;
                  try (MeshAllReduce ar =
                      MeshAllReduce.connect(rank, eps, servers.get(rank), 1L, timeoutMillis)) {
                    for (int w = 0; w < 3; w++) {
                      ar.allReduceMean(g, floats); // warm-up: buffers, JIT
                    }
                    for (int k = 0; k < repeats; k++) {
                      ar.allGather(k); // line the ranks up so that each timing starts together
                      long t0 = System.nanoTime();
                      ar.allReduceMean(g, floats);
                      best = Math.min(best, (System.nanoTime() - t0) / 1e9);
                    }
                  }
                  return best;
                }));
      }
      double worst = 0;
      for (Future<Double> f : fs) {
        worst = Math.max(worst, f.get(timeoutMillis, TimeUnit.MILLISECONDS));
      }
      return worst;
    } finally {
      pool.shutdownNow();
      for (ServerSocketChannel s : servers) {
        s.close();
      }
    }
  }

  /**
   * Best-of-{@code repeats} bytes/s of one {@code bytes}-byte transfer from one thread to another
   * over a loopback TCP connection, with the same socket options and direct buffers.
   */
  static double loopbackBytesPerSecond(int bytes, int repeats) throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (ServerSocketChannel server = MeshAllReduce.listen("127.0.0.1", 0);
        SocketChannel out = SocketChannel.open()) {
      out.setOption(java.net.StandardSocketOptions.SO_SNDBUF, 4 << 20);
      out.setOption(java.net.StandardSocketOptions.TCP_NODELAY, true);
      out.connect(new InetSocketAddress("127.0.0.1", server.socket().getLocalPort()));
      try (SocketChannel in = server.accept()) {
        in.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 4 << 20);
        ByteBuffer src = ByteBuffer.allocateDirect(bytes);
        ByteBuffer dst = ByteBuffer.allocateDirect(bytes);
        ByteBuffer ack = ByteBuffer.allocate(1);
        double best = Double.MAX_VALUE;
        for (int k = 0; k <= repeats; k++) {
          Future<?> reader =
              pool.submit(
                  () -> {
                    dst.clear();
                    while (dst.hasRemaining()) {
                      if (in.read(dst) < 0) {
                        throw new IOException("loopback peer closed");
                      }
                    }
                    in.write(ByteBuffer.wrap(new byte[] {1}));
                    return null;
                  });
          long t0 = System.nanoTime();
          src.clear();
          while (src.hasRemaining()) {
            out.write(src);
          }
          ack.clear();
          out.read(ack);
          reader.get();
          double s = (System.nanoTime() - t0) / 1e9;
          if (k > 0) {
            best = Math.min(best, s);
          }
        }
        return bytes / best;
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
