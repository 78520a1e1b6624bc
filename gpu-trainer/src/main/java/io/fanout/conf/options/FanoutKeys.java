package io.fanout.conf.options;

import io.fanout.conf.ClosestName;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code spark.fanout.*} configuration keys Fanout reads: {@code spark.fanout.<name>} for every
 * option of every command (shared by the commands with that option), {@code
 * spark.fanout.<stage>.<name>} for an option of one of the pipeline's stages ({@link #STAGES}), for
 * that stage only, and the documented keys that are not options ({@link #OTHER_KEYS}, {@link
 * #OTHER_PREFIXES}). A session key under {@code spark.fanout.} that is none of these is a typo,
 * refused rather than silently ignored.
 */
public final class FanoutKeys {
  private FanoutKeys() {}

  static final String PREFIX = "spark.fanout.";

  /** Keys read by name that are no command's option. */
  static final List<String> OTHER_KEYS = List.of(PREFIX + "watch.id");

  /** Families of keys that are no command's option: the test and operations hooks. */
  static final List<String> OTHER_PREFIXES = List.of(PREFIX + "hooks.");

  /** The stages whose options a session key can set for that stage alone, with their options. */
  public static final Map<String, List<OptionDef<?>>> STAGES =
      Map.of(
          "prepare", PrepareOptions.ALL,
          "quantize", QuantizeCommandOptions.ALL,
          "sample", SampleOptions.ALL,
          "train", TrainCommandOptions.TRAIN,
          "evaluate", EvaluateOptions.ALL,
          "infer", InferOptions.ALL);

  private static final Set<String> OPTION_KEYS = optionKeys();

  /**
   * Refuses the first key of {@code sessionKeys} under {@code spark.fanout.} that Fanout does not
   * read, naming the closest key it does.
   *
   * @throws FanoutConfigException "unknown configuration key 'K'; did you mean K2?"
   */
  public static void refuseUnknown(Collection<String> sessionKeys) {
    for (String key : sessionKeys) {
      if (!known(key)) {
        throw new FanoutConfigException(
            "unknown configuration key '"
                + key
                + "'; did you mean "
                + ClosestName.of(key, OPTION_KEYS)
                + "?");
      }
    }
  }

  /** True for a key outside {@code spark.fanout.} or one that Fanout reads. */
  static boolean known(String key) {
    if (!key.startsWith(PREFIX) || OPTION_KEYS.contains(key) || OTHER_KEYS.contains(key)) {
      return true;
    }
    for (String p : OTHER_PREFIXES) {
      if (key.startsWith(p)) {
        return true;
      }
    }
    return false;
  }

  private static Set<String> optionKeys() {
    Set<String> keys = new TreeSet<>();
    STAGES.forEach(
        (stage, defs) -> {
          for (OptionDef<?> d : defs) {
            keys.add(d.sessionKey(stage));
          }
        });
    for (Class<?> c : OptionClasses.ALL) {
      for (Field f : c.getFields()) {
        if (Modifier.isStatic(f.getModifiers()) && OptionDef.class.isAssignableFrom(f.getType())) {
          try {
            keys.add(((OptionDef<?>) f.get(null)).sessionKey());
          } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
          }
        }
      }
    }
    return keys;
  }
}
