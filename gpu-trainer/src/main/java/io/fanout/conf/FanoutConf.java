package io.fanout.conf;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Resolves the options of one capability: an explicit option, then the session configuration (first
 * {@code spark.fanout.<capability>.<name>}, for this capability only, then {@code
 * spark.fanout.<name>}, shared by every capability with that option), then the documented default.
 * Unknown explicit options are rejected, naming the known ones.
 *
 * <p>Engine-free: the session configuration is any {@code key -> Optional<value>} lookup, so Spark
 * callers pass {@code k -> Optional.ofNullable(spark.conf().get(k, null))}.
 */
public final class FanoutConf {
  private final String capability;
  private final Map<String, OptionDef<?>> defs = new LinkedHashMap<>();
  private final Map<String, String> explicit;
  private final Function<String, Optional<String>> session;

  /**
   * @param capability what the options configure, for error messages (e.g. "prepare")
   * @param defs every option the capability accepts
   * @param explicit explicitly given options; keys must be names of {@code defs}
   * @param session the session configuration lookup
   * @throws FanoutConfigException on an unknown option, or a given value that is empty or does not
   *     parse
   */
  public FanoutConf(
      String capability,
      List<OptionDef<?>> defs,
      Map<String, String> explicit,
      Function<String, Optional<String>> session) {
    this.capability = capability;
    for (OptionDef<?> d : defs) {
      if (this.defs.put(d.name(), d) != null) {
        throw new IllegalArgumentException("duplicate option " + d.name());
      }
    }
    this.explicit = Collections.unmodifiableMap(new TreeMap<>(explicit));
    this.session = session;
    for (String key : explicit.keySet()) {
      if (!this.defs.containsKey(key)) {
        throw new FanoutConfigException(
            "unknown option '"
                + key
                + "' for "
                + capability
                + "; known options: "
                + String.join(", ", this.defs.keySet()));
      }
    }
    for (OptionDef<?> d : this.defs.values()) {
      refuseEmpty(d);
      if (given(d)) {
        get(d); // every given value parses before any work, whether or not a mode reads it
      }
    }
  }

  /**
   * An option given (explicitly or by the session) as an empty value, where its default is not
   * empty, is refused: an empty path would otherwise resolve to the working directory.
   */
  private void refuseEmpty(OptionDef<?> d) {
    if (d.isFlag() || (d.defaultValue() != null && d.defaultValue().isBlank())) {
      return;
    }
    String v = raw(d);
    if (v != null && v.isBlank() && given(d)) {
      throw new FanoutConfigException(
          "option '" + d.name() + "' of " + capability + " is empty; give it a value");
    }
  }

  /** True when {@code def} is given explicitly or by the session, not left to its default. */
  public boolean given(OptionDef<?> def) {
    return explicit.containsKey(def.name()) || fromSession(def).isPresent();
  }

  /** The session's value of {@code def}: its key scoped to this capability, else the shared one. */
  private Optional<String> fromSession(OptionDef<?> def) {
    Optional<String> scoped = session.apply(def.sessionKey(capability));
    return scoped.isPresent() ? scoped : session.apply(def.sessionKey());
  }

  /**
   * Refuses {@code ignored} when it is given explicitly with a value other than its default,
   * because the mode in effect does not use it: a setting that would be silently dropped is an
   * error instead. The session configuration is shared by every command and is not checked.
   *
   * @param why what makes it ignored, e.g. "--neighbors full uses every neighbor"
   * @throws FanoutConfigException "option 'NAME' of CAPABILITY is ignored: WHY"
   */
  public void refuseIgnored(OptionDef<?> ignored, String why) {
    String v = explicit.get(ignored.name());
    if (v != null && !v.equals(ignored.defaultValue())) {
      throw new FanoutConfigException(
          "option '" + ignored.name() + "' of " + capability + " is ignored: " + why);
    }
  }

  /** A conf with no session configuration. */
  public static FanoutConf of(
      String capability, List<OptionDef<?>> defs, Map<String, String> explicit) {
    return new FanoutConf(capability, defs, explicit, k -> Optional.empty());
  }

  /** The resolved, parsed value of {@code def}. */
  public <T> T get(OptionDef<T> def) {
    if (!defs.containsKey(def.name())) {
      throw new IllegalArgumentException(def.name() + " is not an option of " + capability);
    }
    String raw = raw(def);
    if (raw == null) {
      throw new FanoutConfigException(
          capability + " needs option '" + def.name() + "': " + def.doc());
    }
    try {
      return def.parse(raw);
    } catch (IllegalArgumentException e) {
      throw new FanoutConfigException(
          "option '"
              + def.name()
              + "' of "
              + capability
              + " has value '"
              + raw
              + "': "
              + e.getMessage(),
          e);
    }
  }

  /**
   * The value of {@code def}, refused below {@code min}: the one range check of integer options.
   *
   * @throws FanoutConfigException "option 'NAME' of CAPABILITY has value V; expected MIN or more"
   */
  public int atLeast(OptionDef<Integer> def, int min) {
    int v = get(def);
    if (v < min) {
      throw new FanoutConfigException(
          "option '"
              + def.name()
              + "' of "
              + capability
              + " has value "
              + raw(def)
              + "; expected "
              + min
              + " or more");
    }
    return v;
  }

  /** The raw value of {@code def} after resolution, or null when required and absent. */
  public String raw(OptionDef<?> def) {
    String v = explicit.get(def.name());
    if (v != null) {
      return v;
    }
    Optional<String> s = fromSession(def);
    return s.isPresent() ? s.get() : def.defaultValue();
  }

  /** Every option's resolved raw value, in declaration order; used to fingerprint a run. */
  public Map<String, String> resolved() {
    Map<String, String> out = new LinkedHashMap<>();
    for (OptionDef<?> d : defs.values()) {
      out.put(d.name(), raw(d));
    }
    return out;
  }

  /**
   * {@link #resolved()} without {@code leftOut}: what a manifest records of a request, leaving out
   * the options that say how to run it rather than what to produce.
   */
  public Map<String, String> resolvedExcept(List<OptionDef<?>> leftOut) {
    Map<String, String> out = resolved();
    for (OptionDef<?> d : leftOut) {
      out.remove(d.name());
    }
    return out;
  }

  /**
   * {@link #resolved()} without the options that resolve to no value (required ones not given): the
   * options to hand on, e.g. to an action or to an executor that rebuilds the configuration.
   */
  public Map<String, String> present() {
    Map<String, String> out = resolved();
    out.values().removeIf(Objects::isNull);
    return out;
  }

  /**
   * The options given explicitly or by the session, as name -> raw value in declaration order: what
   * a command line hands to an action, which then resolves the others to their defaults itself (so
   * that the action can tell a given value from a default, as it does for an API call).
   */
  public Map<String, String> given() {
    Map<String, String> out = new LinkedHashMap<>();
    for (OptionDef<?> d : defs.values()) {
      if (given(d)) {
        out.put(d.name(), raw(d));
      }
    }
    return out;
  }

  /** Help text: one line per option with its default. */
  public static String help(List<OptionDef<?>> defs) {
    List<String> lines = new ArrayList<>();
    int width = 0;
    for (OptionDef<?> d : defs) {
      width = Math.max(width, d.name().length());
    }
    for (OptionDef<?> d : defs) {
      String dflt = d.required() ? "(required)" : "(default: " + d.defaultValue() + ")";
      lines.add(String.format("  --%-" + width + "s  %s %s", d.name(), d.doc(), dflt));
    }
    return String.join(System.lineSeparator(), lines);
  }
}
