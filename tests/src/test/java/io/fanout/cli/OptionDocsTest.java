package io.fanout.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The option tables in docs/*.md are the ones {@link OptionDocs} renders from the definitions of
 * every command on the classpath (the pipeline's and the benchmarks', hence this module), and every
 * command with options has one. With {@code -Dfanout.options.write=true} the test rewrites the
 * stale tables instead of failing.
 */
class OptionDocsTest {
  private static final Path DOCS = Path.of(System.getProperty("fanout.repo", "..")).resolve("docs");
  private static final String REGENERATE =
      "regenerate the option tables with: mvn -o -B -ntp -pl tests -am test -Dtest=OptionDocsTest"
          + " -Dsurefire.failIfNoSpecifiedTests=false -Dfanout.options.write=true";

  @Test
  void theTablesInTheDocsAreTheDefinitions() throws IOException {
    boolean write = Boolean.getBoolean("fanout.options.write");
    List<String> stale = new ArrayList<>();
    for (Path page : OptionDocs.pages(DOCS)) {
      String text = Files.readString(page, StandardCharsets.UTF_8);
      if (!OptionDocs.render(text).equals(text)) {
        if (write) {
          OptionDocs.rewrite(page);
        } else {
          stale.add(page.getFileName().toString());
        }
      }
    }
    assertThat(stale)
        .as("pages whose option tables differ from the definitions; " + REGENERATE)
        .isEmpty();
  }

  @Test
  void everyCommandWithOptionsHasATable() throws IOException {
    Set<String> documented = new TreeSet<>();
    for (Path page : OptionDocs.pages(DOCS)) {
      documented.addAll(OptionDocs.blocks(Files.readString(page, StandardCharsets.UTF_8)));
    }
    assertThat(documented)
        .as(
            "commands with an options block (<!-- options:begin COMMAND --> <!-- options:end"
                + " COMMAND -->) in docs/*.md; add one, then "
                + REGENERATE)
        .containsAll(OptionDocs.commands().keySet());
  }

  @Test
  void eachCommandHasOneBlockAndEveryMarkerIsPaired() throws IOException {
    List<String> blocks = new ArrayList<>();
    for (Path page : OptionDocs.pages(DOCS)) {
      String text = Files.readString(page, StandardCharsets.UTF_8);
      List<String> here = OptionDocs.blocks(text);
      blocks.addAll(here);
      assertThat(count(text, "<!-- options:begin "))
          .as(page + ": options:begin markers")
          .isEqualTo(here.size());
      assertThat(count(text, "<!-- options:end "))
          .as(page + ": options:end markers")
          .isEqualTo(here.size());
    }
    assertThat(blocks).as("option blocks in docs/*.md, one per command").doesNotHaveDuplicates();
  }

  private static int count(String text, String marker) {
    int n = 0;
    for (int i = text.indexOf(marker); i >= 0; i = text.indexOf(marker, i + 1)) {
      n++;
    }
    return n;
  }

  @Test
  void aTableListsNameDefaultAndMeaning() {
    String text =
        OptionDocs.render(
            "x\n<!-- options:begin inspect -->\nold\n<!-- options:end inspect -->\ny\n");
    assertThat(text)
        .startsWith("x\n<!-- options:begin inspect -->\n| option | default | meaning |\n")
        .contains("| `--no-checksums` | `false` | skip reading every file")
        .contains("| `--compare` | (none) | ")
        .endsWith("<!-- options:end inspect -->\ny\n");
  }
}
