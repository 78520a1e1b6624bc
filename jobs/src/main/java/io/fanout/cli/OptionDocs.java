package io.fanout.cli;

import io.fanout.conf.OptionDef;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The option tables of the docs, generated from the commands' definitions. A page holds a command's
 * table between {@code <!-- options:begin COMMAND -->} and {@code <!-- options:end COMMAND -->};
 * {@link #rewrite} replaces what lies between with {@link #table}. {@code OptionDocsTest} fails
 * when a table is stale and says how to regenerate them.
 */
public final class OptionDocs {
  private OptionDocs() {}

  static final Pattern BLOCK =
      Pattern.compile(
          "(<!-- options:begin ([a-z-]+) -->\\n)(.*?)(<!-- options:end \\2 -->)", Pattern.DOTALL);

  /** Rewrites the option tables of every {@code *.md} page under {@code args[0]} (docs). */
  public static void main(String[] args) {
    Path docs = Path.of(args.length > 0 ? args[0] : "docs");
    for (Path page : pages(docs)) {
      rewrite(page);
    }
  }

  /** Every command that takes options, by name, in help order. */
  static Map<String, Command> commands() {
    Map<String, Command> out = new LinkedHashMap<>();
    for (Command c : Commands.all()) {
      if (!c.options().isEmpty()) {
        out.put(c.name(), c);
      }
    }
    return out;
  }

  /** The Markdown table of {@code command}'s options: name, default, meaning. */
  static String table(Command command) {
    StringBuilder b = new StringBuilder("| option | default | meaning |\n|---|---|---|\n");
    for (OptionDef<?> d : command.options()) {
      b.append("| `--")
          .append(d.name())
          .append("` | ")
          .append(defaultText(d))
          .append(" | ")
          .append(d.doc().replace("|", "\\|"))
          .append(" |\n");
    }
    return b.toString();
  }

  private static String defaultText(OptionDef<?> d) {
    if (d.required()) {
      return "(required)";
    }
    if (d.defaultValue().isEmpty()) {
      return "(none)";
    }
    return "`" + d.defaultValue().replace("|", "\\|") + "`";
  }

  /** {@code text} with every option block holding its command's current table. */
  static String render(String text) {
    Map<String, Command> commands = commands();
    Matcher m = BLOCK.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      Command c = commands.get(m.group(2));
      if (c == null) {
        throw new IllegalArgumentException(
            "an options block names '" + m.group(2) + "', which is no command with options");
      }
      m.appendReplacement(out, Matcher.quoteReplacement(m.group(1) + table(c) + m.group(4)));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** The commands whose blocks {@code text} holds. */
  static List<String> blocks(String text) {
    List<String> names = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      names.add(m.group(2));
    }
    return names;
  }

  static void rewrite(Path page) {
    try {
      String text = Files.readString(page, StandardCharsets.UTF_8);
      String updated = render(text);
      if (!updated.equals(text)) {
        Files.writeString(page, updated, StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<Path> pages(Path docs) {
    try (Stream<Path> s = Files.list(docs)) {
      return s.filter(p -> p.toString().endsWith(".md")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
