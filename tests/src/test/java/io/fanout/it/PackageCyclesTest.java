package io.fanout.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No cycle among the {@code io.fanout} packages of the main sources: a package reaches another
 * through its imports (static and wildcard ones included) and through qualified references in code
 * ({@code io.fanout.dist.Replica}); comments and string literals do not count. Each cycle found is
 * printed as a path of packages, each step with the files that make it. Also: the tensor backends
 * reach neither the graph store nor the feature cache.
 */
class PackageCyclesTest {
  private static final Path REPO = Path.of(System.getProperty("fanout.repo", ".."));
  private static final Pattern PACKAGE = Pattern.compile("(?m)^\\s*package\\s+([\\w.]+)\\s*;");

  /** A reference to a type of a package: the lower-case segments before the first type name. */
  private static final Pattern REF =
      Pattern.compile("\\bio\\.fanout((?:\\s*\\.\\s*[a-z_][a-z0-9_]*)*)\\s*\\.\\s*[A-Z*]");

  /** A reference to a type: its package's segments after {@code io.fanout}, then the type. */
  private static final Pattern TYPE_REF =
      Pattern.compile("\\bio\\.fanout((?:\\s*\\.\\s*[a-z_][a-z0-9_]*)*)\\s*\\.\\s*([A-Z]\\w*|\\*)");

  /** The packages (with their subpackages) that the tensor backends must not reach. */
  private static final List<String> STORE_SIDE =
      List.of("io.fanout.store", "io.fanout.graph", "io.fanout.features");

  /** The one store type the tensor backends may use: the project-wide bad-input exception. */
  private static final Set<String> STORE_SIDE_ALLOWED =
      Set.of("io.fanout.store.InvalidInputException");

  @Test
  void noCycleAmongPackages() throws IOException {
    Map<String, Map<String, Set<String>>> deps = dependencies();
    List<String> cycles = new ArrayList<>();
    for (List<String> component : stronglyConnected(deps)) {
      if (component.size() > 1) {
        cycles.add(
            "among "
                + new TreeSet<>(component)
                + ", e.g. "
                + describe(cycleThrough(component, deps), deps));
      }
    }
    assertThat(cycles).as("package cycles among the main sources").isEmpty();
  }

  /**
   * The tensor backends ({@code io.fanout.tensor} and its subpackages) read the store-free
   * descriptions of feature rows that their callers build, and reference no type of the graph store
   * ({@code io.fanout.store}, {@code io.fanout.graph}) or the feature cache ({@code
   * io.fanout.features}), wildcard imports included; the one exception is {@code
   * io.fanout.store.InvalidInputException}.
   */
  @Test
  void tensorBackendsReachNeitherStoreNorFeatureCache() throws IOException {
    List<String> offenders = new ArrayList<>();
    for (Path f : mainSources()) {
      String code = codeOnly(Files.readString(f, StandardCharsets.UTF_8));
      Matcher pkg = PACKAGE.matcher(code);
      if (!pkg.find() || !within(pkg.group(1), "io.fanout.tensor")) {
        continue;
      }
      Matcher refs = TYPE_REF.matcher(code);
      while (refs.find()) {
        String to = ("io.fanout" + refs.group(1)).replaceAll("\\s", "");
        String type = to + "." + refs.group(2);
        if (STORE_SIDE.stream().anyMatch(p -> within(to, p))
            && !STORE_SIDE_ALLOWED.contains(type)) {
          offenders.add(REPO.relativize(f) + ": " + type);
        }
      }
    }
    assertThat(offenders)
        .as("io.fanout.tensor.. referencing the store, the graph or the feature cache")
        .isEmpty();
  }

  /** Whether {@code pkg} is {@code root} or one of its subpackages. */
  private static boolean within(String pkg, String root) {
    return pkg.equals(root) || pkg.startsWith(root + ".");
  }

  /** package -> package it uses -> the files (repository-relative) that use it. */
  private static Map<String, Map<String, Set<String>>> dependencies() throws IOException {
    Map<String, Map<String, Set<String>>> deps = new TreeMap<>();
    int files = 0;
    for (Path f : mainSources()) {
      files++;
      String code = codeOnly(Files.readString(f, StandardCharsets.UTF_8));
      Matcher pkg = PACKAGE.matcher(code);
      assertThat(pkg.find()).as(f + " declares its package").isTrue();
      String from = pkg.group(1);
      Map<String, Set<String>> out = deps.computeIfAbsent(from, k -> new TreeMap<>());
      Matcher refs = REF.matcher(code);
      while (refs.find()) {
        String to = ("io.fanout" + refs.group(1)).replaceAll("\\s", "");
        if (!to.equals(from)) {
          out.computeIfAbsent(to, k -> new TreeSet<>()).add(REPO.relativize(f).toString());
        }
      }
    }
    assertThat(files).as("main sources found under " + REPO.toAbsolutePath()).isGreaterThan(100);
    return deps;
  }

  /** Every {@code <module>/src/main/java/**.java} of the repository's modules. */
  private static List<Path> mainSources() throws IOException {
    List<Path> roots;
    try (Stream<Path> modules = Files.list(REPO)) {
      roots =
          modules
              .map(m -> m.resolve("src").resolve("main").resolve("java"))
              .filter(Files::isDirectory)
              .sorted()
              .toList();
    }
    List<Path> sources = new ArrayList<>();
    for (Path root : roots) {
      try (Stream<Path> s = Files.walk(root)) {
        s.filter(p -> p.toString().endsWith(".java")).sorted().forEach(sources::add);
      }
    }
    return sources;
  }

  /** {@code source} with its comments and string and character literals blanked out. */
  static String codeOnly(String source) {
    StringBuilder out = new StringBuilder(source.length());
    int n = source.length();
    int i = 0;
    while (i < n) {
      char c = source.charAt(i);
      if (source.startsWith("/*", i)) {
        int end = source.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
        out.append(' ');
      } else if (source.startsWith("//", i)) {
        int end = source.indexOf('\n', i);
        i = end < 0 ? n : end;
      } else if (source.startsWith("\"\"\"", i)) {
        int end = source.indexOf("\"\"\"", i + 3);
        i = end < 0 ? n : end + 3;
        out.append("\"\"");
      } else if (c == '"' || c == '\'') {
        int j = i + 1;
        while (j < n && source.charAt(j) != c) {
          j += source.charAt(j) == '\\' ? 2 : 1;
        }
        i = j + 1;
        out.append(c).append(c);
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  /** Tarjan's strongly connected components of the package graph. */
  private static List<List<String>> stronglyConnected(Map<String, Map<String, Set<String>>> deps) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new TreeSet<>();
    List<List<String>> components = new ArrayList<>();
    for (String v : deps.keySet()) {
      if (!index.containsKey(v)) {
        connect(v, deps, index, low, stack, onStack, components);
      }
    }
    return components;
  }

  private static void connect(
      String v,
      Map<String, Map<String, Set<String>>> deps,
      Map<String, Integer> index,
      Map<String, Integer> low,
      Deque<String> stack,
      Set<String> onStack,
      List<List<String>> components) {
    index.put(v, index.size());
    low.put(v, index.get(v));
    stack.push(v);
    onStack.add(v);
    for (String w : deps.getOrDefault(v, Map.of()).keySet()) {
      if (!index.containsKey(w)) {
        connect(w, deps, index, low, stack, onStack, components);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      List<String> component = new ArrayList<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        component.add(w);
      } while (!w.equals(v));
      components.add(component);
    }
  }

  /** A shortest cycle from the component's first package (by name) back to it. */
  private static List<String> cycleThrough(
      List<String> component, Map<String, Map<String, Set<String>>> deps) {
    String start = new TreeSet<>(component).first();
    Map<String, String> cameFrom = new HashMap<>();
    Deque<String> queue = new ArrayDeque<>(List.of(start));
    while (!queue.isEmpty()) {
      String v = queue.poll();
      for (String w : deps.getOrDefault(v, Map.of()).keySet()) {
        if (w.equals(start)) {
          List<String> path = new ArrayList<>(List.of(start));
          for (String u = v; !u.equals(start); u = cameFrom.get(u)) {
            path.add(1, u);
          }
          path.add(start);
          return path;
        }
        if (component.contains(w) && !cameFrom.containsKey(w)) {
          cameFrom.put(w, v);
          queue.add(w);
        }
      }
    }
    throw new IllegalStateException("no cycle through " + start);
  }

  private static String describe(List<String> cycle, Map<String, Map<String, Set<String>>> deps) {
    StringBuilder sb = new StringBuilder(cycle.get(0));
    for (int i = 1; i < cycle.size(); i++) {
      sb.append("\n    -> ")
          .append(cycle.get(i))
          .append("  (")
          .append(String.join(", ", deps.get(cycle.get(i - 1)).get(cycle.get(i))))
          .append(')');
    }
    return sb.toString();
  }
}
