package io.fanout.conf;

import java.util.Locale;

/**
 * What a stage does when its output already holds something, as {@code DataFrameWriter}'s save
 * modes: the API's {@code mode(...)} and {@code bin/fanout --if-exists}.
 */
public enum IfExists implements OptionEnum {
  /**
   * The default: an output of the same request, complete, is kept and the stage skipped; one of
   * another request (or incomplete) is refused.
   */
  SAME("same"),
  /** Keep any complete output there and skip the stage ({@code ignore}; {@code skip} too). */
  IGNORE("ignore"),
  /** Refuse any output there, even of the same request ({@code errorifexists}). */
  ERROR("error"),
  /** Replace what is there ({@code overwrite}). */
  OVERWRITE("overwrite"),
  /** Continue the run the output holds: {@code train} only ({@code resume}). */
  RESUME("resume");

  private final String id;

  IfExists(String id) {
    this.id = id;
  }

  @Override
  public String id() {
    return id;
  }

  /**
   * The value spelled {@code raw}: one of the ids, or {@code DataFrameWriter}'s spellings {@code
   * errorifexists}, {@code error-if-exists}, {@code default}, and {@code skip} for {@code ignore}.
   */
  public static IfExists parse(String raw) {
    String s = raw == null ? "" : raw.trim().toLowerCase(Locale.ROOT).replace("_", "-");
    return switch (s) {
      case "errorifexists", "error-if-exists" -> ERROR;
      case "skip" -> IGNORE;
      case "default" -> SAME;
      default -> OptionEnum.parse(raw, values());
    };
  }
}
