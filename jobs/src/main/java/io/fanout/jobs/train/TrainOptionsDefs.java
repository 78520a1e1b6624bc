package io.fanout.jobs.train;

import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;

/** Options shared by the training commands. */
final class TrainOptionsDefs {
  private TrainOptionsDefs() {}

  static final OptionDef<String> GRAPH =
      OptionDef.string("graph", null, "graph store directory written by bin/fanout prepare");
  static final OptionDef<String> MODEL_DIR =
      OptionDef.string("model-dir", null, "model directory (checkpoint.bin, metrics.jsonl)");

  /** Parses {@code "20,20,20"}; an empty string means none. */
  static int[] fanouts(String s) {
    if (s == null || s.isBlank()) {
      return null;
    }
    String[] parts = s.split(",");
    int[] out = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        out[i] = Integer.parseInt(parts[i].trim());
      } catch (NumberFormatException e) {
        throw new FanoutConfigException(
            "--fanouts expects comma-separated integers like 20,20,20, got '" + s + "'");
      }
      if (out[i] == 0 || out[i] < -1) {
        throw new FanoutConfigException(
            "--fanouts entry " + out[i] + " in '" + s + "'; expected > 0 or -1 (all)");
      }
    }
    return out;
  }
}
