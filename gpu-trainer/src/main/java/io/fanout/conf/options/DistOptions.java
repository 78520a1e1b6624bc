package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import java.util.List;

/** Options of distributed (barrier-stage) training; also read as {@code spark.fanout.<name>}. */
public final class DistOptions {
  private DistOptions() {}

  public static final OptionDef<Integer> WORKERS =
      OptionDef.integer(
          "workers",
          0,
          "trainer replicas, one per task slot of a barrier stage; 0 = one per slot of the cluster"
              + " (Spark's default parallelism) when the master is a cluster, else 1");

  public static final OptionDef<Long> TIMEOUT_MS =
      OptionDef.longValue(
          "dist-timeout-ms",
          300_000L,
          "bound in ms on every wait for a peer (connect, handshake, each step's exchange)");

  public static final OptionDef<Integer> PORT =
      OptionDef.integer(
          "dist-port", 0, "TCP port each worker listens on for gradients; 0 = an ephemeral port");

  public static final OptionDef<Boolean> VERIFY =
      OptionDef.bool(
          "dist-verify",
          false,
          "before every step and at the end compare a checksum of the parameters across workers,"
              + " fail on divergence");

  /** All of them, as {@code bin/fanout train} accepts them. */
  public static final List<OptionDef<?>> ALL = List.of(WORKERS, TIMEOUT_MS, PORT, VERIFY);
}
