package io.fanout.conf;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * One documented option: a kebab-case name, a default, a description and a parser.
 *
 * <p>Options are resolved by {@link FanoutConf}: an explicit option wins, then the session
 * configuration key {@code spark.fanout.<name>}, then the default. A parser throws {@link
 * IllegalArgumentException} with a message saying what was expected; {@link FanoutConf} adds the
 * option name and the offending value.
 *
 * @param <T> the parsed type
 */
public final class OptionDef<T> {
  private final String name;
  private final String defaultValue;
  private final String doc;
  private final Function<String, T> parser;
  private final boolean flag;
  private final String docSuffix;
  private final OptionDef<?> origin;
  private final String[] choices;

  private OptionDef(
      String name, String defaultValue, String doc, Function<String, T> parser, boolean flag) {
    this(name, defaultValue, doc, "", parser, flag, null, null);
  }

  private OptionDef(
      String name,
      String defaultValue,
      String doc,
      String docSuffix,
      Function<String, T> parser,
      boolean flag,
      OptionDef<?> origin,
      String[] choices) {
    if (!name.matches("[a-z][a-z0-9]*(-[a-z0-9]+)*")) {
      throw new IllegalArgumentException("option names are kebab-case, got '" + name + "'");
    }
    this.name = name;
    this.defaultValue = defaultValue;
    this.doc = Objects.requireNonNull(doc);
    this.parser = Objects.requireNonNull(parser);
    this.flag = flag;
    this.docSuffix = docSuffix;
    this.origin = origin == null ? this : origin;
    this.choices = choices;
  }

  /**
   * An option whose raw string value is parsed by {@code parser}; {@code defaultValue} may be null
   * (required).
   */
  public static <T> OptionDef<T> of(
      String name, String defaultValue, String doc, Function<String, T> parser) {
    return new OptionDef<>(name, defaultValue, doc, parser, false);
  }

  public static OptionDef<String> string(String name, String defaultValue, String doc) {
    return of(name, defaultValue, doc, s -> s);
  }

  public static OptionDef<Integer> integer(String name, int defaultValue, String doc) {
    return of(name, Integer.toString(defaultValue), doc, OptionDef::parseInt);
  }

  public static OptionDef<Long> longValue(String name, long defaultValue, String doc) {
    return of(name, Long.toString(defaultValue), doc, OptionDef::parseLong);
  }

  public static OptionDef<Double> doubleValue(String name, double defaultValue, String doc) {
    return of(name, Double.toString(defaultValue), doc, OptionDef::parseDouble);
  }

  public static OptionDef<Boolean> bool(String name, boolean defaultValue, String doc) {
    return new OptionDef<>(name, Boolean.toString(defaultValue), doc, OptionDef::parseBool, true);
  }

  /**
   * An option naming one of {@code values} (an enum's modes), parsed by {@code parse} (the enum's
   * {@code parse}); its help lists the values' spellings, joined by {@code |}.
   */
  public static <E extends Enum<E> & OptionEnum> OptionDef<E> enumeration(
      String name, E defaultValue, String doc, Function<String, E> parse, E[] values) {
    return enumeration(name, defaultValue, doc, parse, values, E::id);
  }

  /**
   * {@link #enumeration} of a domain enum that lives beneath this module and so cannot implement
   * {@link OptionEnum}: {@code id} gives a value's spelling.
   */
  public static <E extends Enum<E>> OptionDef<E> enumeration(
      String name,
      E defaultValue,
      String doc,
      Function<String, E> parse,
      E[] values,
      Function<? super E, String> id) {
    String[] ids = new String[values.length];
    for (int i = 0; i < values.length; i++) {
      ids[i] = id.apply(values[i]);
    }
    return new OptionDef<>(
        name,
        id.apply(defaultValue),
        doc,
        " (" + String.join("|", ids) + ")",
        parse,
        false,
        null,
        ids);
  }

  /**
   * This option with another default: the same name, description and parser. A command whose
   * default differs from the shared one declares its option this way, so the name keeps one
   * definition ({@link #origin()}).
   */
  public OptionDef<T> withDefault(String defaultValue) {
    return withDefault(defaultValue, doc);
  }

  /**
   * This option with another default and a description of what it means to one command; the name,
   * parser and (for a choice) the allowed values stay.
   */
  public OptionDef<T> withDefault(String defaultValue, String doc) {
    return new OptionDef<>(name, defaultValue, doc, docSuffix, parser, flag, origin, choices);
  }

  /**
   * This choice option widened to {@code values}, an enum whose spellings include every one of this
   * option's and add more (e.g. a benchmark's {@code both}): the same name, for a command that
   * offers more than the one the option comes from. Derived like {@link #withDefault}, so the name
   * keeps one definition.
   *
   * @throws IllegalStateException if this option has no choices or {@code values} lacks one
   */
  public <F extends Enum<F> & OptionEnum> OptionDef<F> withAddedChoices(
      F defaultValue, String doc, Function<String, F> parse, F[] values) {
    OptionDef<F> wider = enumeration(name, defaultValue, doc, parse, values);
    if (choices == null || !java.util.Arrays.asList(wider.choices).containsAll(List.of(choices))) {
      throw new IllegalStateException(
          "--" + name + ": " + OptionEnum.ids(values) + " does not widen its choices");
    }
    return new OptionDef<>(
        name, wider.defaultValue, doc, wider.docSuffix, parse, false, origin, wider.choices);
  }

  /**
   * This option given once for all vertex types or per type ({@link PerType}: {@code f16}, {@code
   * paper=f16,author=f32}), each value parsed by this option's parser; its default is this
   * option's. Derived like {@link #withDefault}, so the name keeps one definition, and a reader of
   * the plain option ({@code conf.get(this)}) still parses a value that names no type.
   *
   * @param doc what the option means to the command that takes it per type
   */
  public OptionDef<PerType<T>> perType(String doc) {
    Function<String, T> one = parser;
    T fallback = defaultValue == null ? null : one.apply(defaultValue);
    return new OptionDef<>(
        name,
        defaultValue,
        doc,
        docSuffix,
        raw -> PerType.parse(raw, fallback, one),
        false,
        origin,
        null);
  }

  /**
   * The definition this one was derived from with {@link #withDefault} or {@link
   * #withAddedChoices}, or itself.
   */
  public OptionDef<?> origin() {
    return origin;
  }

  public String name() {
    return name;
  }

  /** The raw default, or null when the option is required. */
  public String defaultValue() {
    return defaultValue;
  }

  /**
   * Whether {@code value}, as the option parses it, is its default: {@code 0} and {@code 0.0}, or
   * {@code FP32} and {@code fp32}, are alike.
   */
  public boolean isDefault(Object value) {
    return defaultValue != null && java.util.Objects.equals(parse(defaultValue), value);
  }

  /**
   * True for boolean options, which the command line accepts as a bare flag ({@code --undirected})
   * or with an explicit {@code true}/{@code false}.
   */
  public boolean isFlag() {
    return flag;
  }

  public boolean required() {
    return defaultValue == null;
  }

  public String doc() {
    return doc + docSuffix;
  }

  /**
   * The session configuration key that supplies this option, to every command that has it, when it
   * is not given explicitly: {@code spark.fanout.<name>}.
   */
  public String sessionKey() {
    return "spark.fanout." + name;
  }

  /**
   * The session configuration key that supplies this option to the command {@code stage} only,
   * ahead of {@link #sessionKey()}: {@code spark.fanout.<stage>.<name>}.
   */
  public String sessionKey(String stage) {
    return "spark.fanout." + stage + "." + name;
  }

  T parse(String raw) {
    return parser.apply(raw);
  }

  private static int parseInt(String s) {
    try {
      return Integer.parseInt(s.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("expected an integer");
    }
  }

  private static long parseLong(String s) {
    try {
      return Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("expected an integer");
    }
  }

  /**
   * A finite decimal number: NaN, the infinities and magnitudes past {@link Float#MAX_VALUE} (which
   * become infinite in the trainer's 32-bit arithmetic) are refused like any other non-number.
   */
  private static double parseDouble(String s) {
    double v;
    try {
      v = Double.parseDouble(s.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("expected a number");
    }
    if (!Double.isFinite(v) || Math.abs(v) > Float.MAX_VALUE) {
      throw new IllegalArgumentException(
          "expected a finite number (at most " + Float.MAX_VALUE + " in magnitude)");
    }
    return v;
  }

  private static boolean parseBool(String s) {
    String v = s.trim().toLowerCase(java.util.Locale.ROOT);
    if (v.equals("true") || v.isEmpty()) {
      return true;
    }
    if (v.equals("false")) {
      return false;
    }
    throw new IllegalArgumentException("expected true or false");
  }
}
