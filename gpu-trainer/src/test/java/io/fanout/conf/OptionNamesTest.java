package io.fanout.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.options.BenchEdgeSort;
import io.fanout.conf.options.OptionClasses;
import io.fanout.conf.options.PrepareOptions;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * One definition per option name: every {@link OptionDef} constant of every options class is either
 * the only definition of its name or derived from it with {@link OptionDef#withDefault} or {@link
 * OptionDef#withAddedChoices}.
 */
class OptionNamesTest {
  @Test
  void everyNameHasOneDefinition() throws IllegalAccessException {
    Map<String, Map<OptionDef<?>, List<String>>> roots = new LinkedHashMap<>();
    for (Map.Entry<String, OptionDef<?>> e : constants().entrySet()) {
      OptionDef<?> d = e.getValue();
      roots
          .computeIfAbsent(d.name(), k -> new IdentityHashMap<>())
          .computeIfAbsent(d.origin(), k -> new ArrayList<>())
          .add(e.getKey());
    }
    List<String> twice = new ArrayList<>();
    roots.forEach(
        (name, byRoot) -> {
          if (byRoot.size() > 1) {
            twice.add("--" + name + " is defined by " + byRoot.values());
          }
        });
    assertThat(twice)
        .as(
            "names defined by unrelated constants (derive one with OptionDef.withDefault or"
                + " withAddedChoices)")
        .isEmpty();
  }

  @Test
  void aDerivedOptionKeepsNameParserAndChoices() {
    OptionDef<Long> seed = SharedOptions.SEED.withDefault("7", "seed of something");
    assertThat(seed.name()).isEqualTo("seed");
    assertThat(seed.origin()).isSameAs(SharedOptions.SEED);
    assertThat(seed.withDefault("8").origin()).isSameAs(SharedOptions.SEED);
    assertThat(FanoutConf.of("x", List.of(seed), Map.of()).get(seed)).isEqualTo(7L);
    OptionDef<io.fanout.conf.Task> task = SharedOptions.TASK.withDefault("link", "what for");
    assertThat(task.doc()).isEqualTo("what for (node|link)");
  }

  @Test
  void aDerivedChoiceAddsValuesToItsOrigin() {
    OptionDef<BenchEdgeSort> both =
        PrepareOptions.EDGE_SORT.withAddedChoices(
            BenchEdgeSort.TASK, "sorts", BenchEdgeSort::parse, BenchEdgeSort.values());
    assertThat(both.name()).isEqualTo("edge-sort");
    assertThat(both.origin()).isSameAs(PrepareOptions.EDGE_SORT);
    assertThat(both.doc()).isEqualTo("sorts (task|sql|both)");
    FanoutConf c = FanoutConf.of("x", List.of(both), Map.of("edge-sort", "BOTH"));
    assertThat(c.get(both)).isEqualTo(BenchEdgeSort.BOTH);
    assertThatThrownBy(
            () ->
                PrepareOptions.ID_LOOKUP.withAddedChoices(
                    BenchEdgeSort.TASK, "sorts", BenchEdgeSort::parse, BenchEdgeSort.values()))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void theRegistryListsEveryOptionsClass() throws IOException {
    Set<String> listed = new TreeSet<>();
    for (Class<?> c : OptionClasses.ALL) {
      listed.add(c.getSimpleName());
    }
    Set<String> present = new TreeSet<>();
    try (Stream<Path> s = Files.list(Path.of("src/main/java/io/fanout/conf/options"))) {
      s.map(p -> p.getFileName().toString().replace(".java", ""))
          .filter(n -> n.endsWith("Options"))
          .forEach(present::add);
    }
    assertThat(listed).containsAll(present);
  }

  /** Every public static OptionDef constant of the registered classes, by Class.FIELD. */
  static Map<String, OptionDef<?>> constants() throws IllegalAccessException {
    Map<String, OptionDef<?>> out = new LinkedHashMap<>();
    for (Class<?> c : OptionClasses.ALL) {
      for (Field f : c.getDeclaredFields()) {
        if (Modifier.isStatic(f.getModifiers()) && OptionDef.class.isAssignableFrom(f.getType())) {
          f.setAccessible(true);
          out.put(c.getSimpleName() + "." + f.getName(), (OptionDef<?>) f.get(null));
        }
      }
    }
    return out;
  }
}
