package io.fanout.cli;

import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A parsed {@code bin/fanout <command> [options] [positional]} line. Accepts {@code --name value},
 * {@code --name=value} and bare boolean flags. {@code --master} and repeated {@code --conf k=v} are
 * taken as spark-submit takes them, {@code --progress} by every command ({@link ProgressMode});
 * everything else must be an option of the command. Every option but {@code --conf} may be given
 * once: a repeat is refused rather than silently taking the last value. An option that takes a
 * value and is followed by another option ({@code --batch-size --fanouts 5,5}) is missing its
 * value, and is refused as such ({@code --name=--x} passes a value that starts with dashes).
 */
final class CommandLine {
  final Map<String, String> options = new LinkedHashMap<>();
  final Map<String, String> sparkConf = new LinkedHashMap<>();
  final List<String> positional = new ArrayList<>();
  String master;
  String progress;
  boolean help;

  static CommandLine parse(Command command, List<String> args) {
    Map<String, OptionDef<?>> defs = new LinkedHashMap<>();
    for (OptionDef<?> d : command.options()) {
      defs.put(d.name(), d);
    }
    CommandLine cl = new CommandLine();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("--help") || a.equals("-h")) {
        cl.help = true;
        continue;
      }
      if (!a.startsWith("--") || a.equals("--")) {
        cl.positional.add(a);
        continue;
      }
      String name = a.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      OptionDef<?> def = defs.get(name);
      boolean flag = def != null && def.isFlag();
      if (value == null) {
        String next = i + 1 < args.size() ? args.get(i + 1) : null;
        if (flag) {
          if (next != null && (next.equalsIgnoreCase("true") || next.equalsIgnoreCase("false"))) {
            value = next;
            i++;
          } else {
            value = "true";
          }
        } else {
          if (next == null) {
            throw new FanoutConfigException("option --" + name + " needs a value");
          }
          if (next.startsWith("--") && !next.equals("--")) {
            throw new FanoutConfigException(
                "option --" + name + " needs a value, got the option " + next + " instead");
          }
          value = next;
          i++;
        }
      }
      if (!name.equals("conf") && !seen.add(name)) {
        throw new FanoutConfigException(
            "option --"
                + name
                + " is given twice (the second time as '"
                + value
                + "'); give each option once");
      }
      if (name.equals("master")) {
        cl.master = value;
      } else if (name.equals("progress")) {
        cl.progress = value;
      } else if (name.equals("conf")) {
        int kv = value.indexOf('=');
        if (kv <= 0) {
          throw new FanoutConfigException("--conf expects key=value, got '" + value + "'");
        }
        cl.sparkConf.put(value.substring(0, kv), value.substring(kv + 1));
      } else {
        // Unknown names are kept: FanoutConf rejects them naming the known ones.
        cl.options.put(name, value);
      }
    }
    return cl;
  }
}
