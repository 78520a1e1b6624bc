package io.fanout.train.typed;

import io.fanout.conf.FanoutConfigException;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.train.HotReuse;
import io.fanout.train.ReuseRefresh;
import io.fanout.train.ReuseRows;
import java.util.List;
import java.util.Map;

/**
 * What typed training builds of {@link HotReuse} ({@code train --reuse-hot} on a typed store), and
 * its checkpoint identity: inline or overlapped refreshes ({@code --reuse-refresh}), no gradient
 * from the reused rows ({@code --reuse-backward none}) and a cache of layer 0's outputs ({@code
 * --reuse-rows auto|outputs}), for node classification with at least two hops.
 */
public final class TypedHotReuse {
  private TypedHotReuse() {}

  /**
   * Refuses the settings typed training does not build, with one line naming the option and value
   * (only when reuse is on).
   */
  public static void check(HotReuse reuse, TypedModelConfig cfg) {
    if (!reuse.enabled()) {
      return;
    }
    checkModes(reuse);
    if (cfg.layers() < 2) {
      throw new FanoutConfigException(
          "train --reuse-hot "
              + reuse.fraction()
              + " needs shards of at least 2 hops; these hold 1");
    }
    if (cfg.kind() == TypedModelKind.HGN && cfg.hgn().attnResidual() != 0f) {
      throw new FanoutConfigException(
          "train --reuse-hot with --attn-residual "
              + cfg.hgn().attnResidual()
              + " is not built: layer 1's edge residual reads layer 0's attention over the whole"
              + " bottom hop");
    }
  }

  /**
   * Refuses the refresh, backward and cache modes typed training does not build, with one line
   * naming the option and value (only when reuse is on).
   */
  public static void checkModes(HotReuse reuse) {
    if (!reuse.enabled()) {
      return;
    }
    if (reuse.rows() == ReuseRows.INPUTS) {
      throw new FanoutConfigException(
          "train --reuse-rows inputs is not built for typed stores; use outputs (or auto)");
    }
  }

  /**
   * The reuse settings as checkpoint identity entries, when reuse is on, with the refresh schedule
   * that runs ({@code inline}, what {@code auto} is here, or {@code overlapped}).
   */
  static void addIdentity(HotReuse reuse, Map<String, String> identity) {
    if (reuse.enabled()) {
      reuse.toMap().forEach((k, v) -> identity.put("identity." + k, v));
      identity.put(
          "identity.reuse_refresh",
          (TypedHotRefresh.overlapped(reuse) ? ReuseRefresh.OVERLAPPED : ReuseRefresh.INLINE).id());
    }
  }

  /** The identity keys of reuse: a run without them cannot resume a checkpoint that has them. */
  static final List<String> IDENTITY_KEYS =
      List.of(
          "identity.reuse_hot", "identity.staleness", "identity.hot_by", "identity.reuse_backward");
}
