package io.fanout.bench.train;

import io.fanout.bench.train.PeerBenchmark.Timing;
import io.fanout.train.FeatureAccessMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fields of the peer benchmark's JSON line, from the runs of every round: medians over rounds,
 * the values of each round, and the last round's loss trajectories.
 *
 * <p>On the CPU (one Fanout mode, one peer variant): {@code fanout_seconds_per_step}, {@code
 * P_seconds_per_step} and {@code fanout_over_P} for peer {@code P}, from steps timed alone. On
 * CUDA, per Fanout mode {@code M} ({@code gather}, {@code zero_copy}, {@code device}) and peer
 * variant {@code V} ({@code resident}, {@code pinned}, {@code pipelined}): {@code
 * fanout_M_seconds_per_step} (steps timed alone), {@code fanout_M_loop_seconds_per_step} (a loop of
 * the timed steps divided by the steps), the same for {@code P_V}, and the ratios {@code
 * fanout_M_over_P_V} of the loop times, the way both sides run when nothing waits between steps;
 * {@code fanout_M_over_copy_bound} divides Fanout's loop step by the peer's {@code
 * pcie_copy_ms_per_batch} where it reports one.
 */
final class PeerReport {
  private PeerReport() {}

  static Map<String, Object> of(
      String peer,
      Map<FeatureAccessMode, List<Timing>> ours,
      Map<String, List<Timing>> theirs,
      List<Map<String, Object>> abouts,
      boolean cuda) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (!cuda) {
      List<Timing> f = ours.values().iterator().next();
      List<Timing> t = theirs.values().iterator().next();
      double fanoutStep = median(f, Timing::stepSeconds);
      double peerStep = median(t, Timing::stepSeconds);
      out.put("fanout_seconds_per_step", fanoutStep);
      out.put(peer + "_seconds_per_step", peerStep);
      out.put("fanout_over_" + peer, fanoutStep / peerStep);
      out.put("fanout_seconds_per_step_by_round", each(f, Timing::stepSeconds));
      out.put(peer + "_seconds_per_step_by_round", each(t, Timing::stepSeconds));
      losses(out, "fanout", last(f).losses());
      losses(out, peer, last(t).losses());
      out.putAll(about(abouts));
      return out;
    }
    List<String> modeIds = new ArrayList<>();
    for (FeatureAccessMode m : ours.keySet()) {
      modeIds.add(m.id());
    }
    out.put("fanout_modes", String.join(",", modeIds));
    out.put(peer + "_variants", String.join(",", theirs.keySet()));
    Map<String, Object> aboutPeer = about(abouts);
    Object bound = aboutPeer.get("pcie_copy_ms_per_batch");
    for (Map.Entry<FeatureAccessMode, List<Timing>> e : ours.entrySet()) {
      String f = "fanout_" + key(e.getKey().id());
      double loop = median(e.getValue(), Timing::loopSecondsPerStep);
      for (Map.Entry<String, List<Timing>> v : theirs.entrySet()) {
        out.put(
            f + "_over_" + peer + "_" + key(v.getKey()),
            loop / median(v.getValue(), Timing::loopSecondsPerStep));
      }
      if (bound instanceof Double ms && ms > 0) {
        out.put(f + "_over_copy_bound", loop / (ms / 1e3));
      }
    }
    for (Map.Entry<FeatureAccessMode, List<Timing>> e : ours.entrySet()) {
      timings(out, "fanout_" + key(e.getKey().id()), e.getValue());
    }
    for (Map.Entry<String, List<Timing>> v : theirs.entrySet()) {
      timings(out, peer + "_" + key(v.getKey()), v.getValue());
    }
    out.putAll(aboutPeer);
    return out;
  }

  /** A mode's or variant's name as a JSON key part: {@code zero-copy} is {@code zero_copy}. */
  static String key(String id) {
    return id.replace('-', '_');
  }

  private static void timings(Map<String, Object> out, String prefix, List<Timing> rounds) {
    out.put(prefix + "_seconds_per_step", median(rounds, Timing::stepSeconds));
    out.put(prefix + "_loop_seconds_per_step", median(rounds, Timing::loopSecondsPerStep));
    out.put(prefix + "_seconds_per_step_by_round", each(rounds, Timing::stepSeconds));
    out.put(prefix + "_loop_seconds_per_step_by_round", each(rounds, Timing::loopSecondsPerStep));
    losses(out, prefix, last(rounds).losses());
  }

  private static void losses(Map<String, Object> out, String prefix, double[] losses) {
    out.put(prefix + "_first_loss", losses[0]);
    out.put(prefix + "_last_loss", losses[losses.length - 1]);
    out.put(prefix + "_losses", losses);
  }

  /** The peer's own fields: numbers as their median over rounds, the rest as the last round's. */
  static Map<String, Object> about(List<Map<String, Object>> rounds) {
    Map<String, Object> out = new LinkedHashMap<>(rounds.get(rounds.size() - 1));
    for (Map.Entry<String, Object> e : out.entrySet()) {
      if (e.getValue() instanceof Double) {
        List<Double> values = new ArrayList<>();
        for (Map<String, Object> r : rounds) {
          if (r.get(e.getKey()) instanceof Double d) {
            values.add(d);
          }
        }
        e.setValue(median(values));
      }
    }
    return out;
  }

  private static Timing last(List<Timing> rounds) {
    return rounds.get(rounds.size() - 1);
  }

  private static List<Double> each(
      List<Timing> rounds, java.util.function.ToDoubleFunction<Timing> f) {
    List<Double> out = new ArrayList<>();
    for (Timing t : rounds) {
      out.add(f.applyAsDouble(t));
    }
    return out;
  }

  private static double median(List<Timing> rounds, java.util.function.ToDoubleFunction<Timing> f) {
    return median(each(rounds, f));
  }

  static double median(List<Double> a) {
    double[] s = a.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }
}
