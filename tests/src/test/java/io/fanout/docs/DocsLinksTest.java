package io.fanout.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the README and of docs/*.md names a file of the repository, and every
 * {@code #anchor} into a Markdown page names one of its headings (as GitHub derives anchors: lower
 * case, punctuation other than {@code -} and {@code _} dropped, spaces to {@code -}).
 */
class DocsLinksTest {
  private static final Path REPO = Path.of(System.getProperty("fanout.repo", ".."));
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

  private final Map<Path, Set<String>> anchors = new HashMap<>();

  @Test
  void relativeLinksNameExistingFilesAndHeadings() throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(REPO.resolve("README.md"));
    try (Stream<Path> docs = Files.list(REPO.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    List<String> broken = new ArrayList<>();
    for (Path page : pages) {
      Matcher m = LINK.matcher(Files.readString(page, StandardCharsets.UTF_8));
      while (m.find()) {
        String target = m.group(1);
        if (target.contains("://") || target.startsWith("mailto:")) {
          continue;
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!Files.exists(resolved)) {
          broken.add(REPO.relativize(page) + ": no file " + target);
        } else if (hash >= 0 && resolved.toString().endsWith(".md")) {
          String anchor = target.substring(hash + 1);
          if (!anchorsOf(resolved).contains(anchor)) {
            broken.add(REPO.relativize(page) + ": no heading for " + target);
          }
        }
      }
    }
    assertThat(pages).hasSizeGreaterThan(5);
    assertThat(broken).as("links in README.md and docs/*.md").isEmpty();
  }

  @Test
  void anchorsFollowGithubsRule() {
    assertThat(anchor("## `bin/fanout infer`")).isEqualTo("binfanout-infer");
    assertThat(anchor("### Scoring another store: `infer --trained-on`"))
        .isEqualTo("scoring-another-store-infer---trained-on");
    assertThat(anchor("## Typed stores: one cache per type"))
        .isEqualTo("typed-stores-one-cache-per-type");
  }

  private Set<String> anchorsOf(Path page) throws IOException {
    Set<String> known = anchors.get(page);
    if (known == null) {
      known = new HashSet<>();
      boolean fenced = false;
      for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
        if (line.startsWith("```")) {
          fenced = !fenced;
        } else if (!fenced && line.startsWith("#")) {
          known.add(anchor(line));
        }
      }
      anchors.put(page, known);
    }
    return known;
  }

  static String anchor(String heading) {
    String text = heading.replaceFirst("^#+\\s*", "").strip().toLowerCase(Locale.ROOT);
    return text.replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
  }
}
