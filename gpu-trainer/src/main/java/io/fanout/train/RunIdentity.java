package io.fanout.train;

import io.fanout.nn.ModelConfig;
import io.fanout.store.InvalidInputException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What ties a fit to its model, options and inputs, as its checkpoints record it, and the check
 * that a checkpoint to continue belongs to the same run.
 */
final class RunIdentity {
  private RunIdentity() {}

  /**
   * The checkpoint metadata of a run: the model's config, the training options but the epochs
   * (extending a run to more epochs is allowed), what {@code hook} adds and {@code identity}.
   */
  static Map<String, String> of(
      ModelConfig config, TrainOptions opts, StepHook hook, Map<String, String> identity) {
    Map<String, String> meta = new TreeMap<>();
    config.toMap().forEach((k, v) -> meta.put("model." + k, v));
    opts.toMap().forEach((k, v) -> meta.put("identity.train." + k, v));
    // Extending a run to more epochs is allowed; everything else must match.
    meta.remove("identity.train.epochs");
    hook.addIdentity(meta);
    identity.forEach((k, v) -> meta.put("identity." + k, v));
    return meta;
  }

  /**
   * Checks that the checkpoint in {@code dir}, of metadata {@code found}, is of the run {@code
   * want} describes.
   *
   * @throws InvalidInputException naming the first difference, the model's first
   */
  static void checkSameRun(Path dir, Map<String, String> found, Map<String, String> want) {
    for (String k : HotReuse.identityKeys()) {
      // Reuse is only in the identity when on: a run with it on is not a run with it off.
      String key = "identity.train." + k;
      if (found.containsKey(key) && !want.containsKey(key)) {
        throw new InvalidInputException(
            "the checkpoint in "
                + dir
                + " belongs to another run: it was trained with "
                + key
                + " = '"
                + found.get(key)
                + "' but this run does not; use another --model-dir or the same options");
      }
    }
    List<Map.Entry<String, String>> entries = new ArrayList<>(want.entrySet());
    // The model's architecture first: the most telling difference.
    entries.sort(
        (a, b) ->
            Boolean.compare(!a.getKey().startsWith("model."), !b.getKey().startsWith("model.")));
    for (Map.Entry<String, String> w : entries) {
      String f = found.get(w.getKey());
      if (f == null && w.getKey().equals("identity.train.reuse_refresh")) {
        throw new InvalidInputException(
            "the checkpoint in "
                + dir
                + " does not record which refresh schedule its reuse ran (a checkpoint trained"
                + " with --reuse-refresh auto before Fanout recorded it), so it cannot be told"
                + " apart from a run whose schedule is '"
                + w.getValue()
                + "'; use another --model-dir or train it again");
      }
      if (!w.getValue().equals(f)) {
        throw new InvalidInputException(
            "the checkpoint in "
                + dir
                + " belongs to another run: its "
                + w.getKey()
                + " is '"
                + f
                + "' but this run has '"
                + w.getValue()
                + "'; use another --model-dir or the same options");
      }
    }
  }
}
