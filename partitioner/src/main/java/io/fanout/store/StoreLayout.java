package io.fanout.store;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Names, magics and codes of the graph store layout described in {@code docs/formats.md}. Writers
 * and readers share these constants; nothing else in the code spells a store file name.
 */
public final class StoreLayout {
  private StoreLayout() {}

  public static final int FORMAT_VERSION = 1;
  public static final int HEADER_BYTES = 64;

  public static final String MANIFEST = "manifest.json";
  public static final String IDMAP_DIR = "idmap";
  public static final String CSR_DIR = "csr";
  public static final String FEATURES_DIR = "features";
  public static final String NODES_DIR = "nodes";
  public static final String WEIGHTS_DIR = "weights";
  public static final String EDGE_SPLIT_DIR = "edgesplit";

  /** The held-out edge splits of a link-prediction store, each stored as one edge list file. */
  public static final java.util.List<String> HELD_OUT_SPLITS = java.util.List.of("val", "test");

  public static final byte[] CSR_MAGIC = "FNOCSR01".getBytes(StandardCharsets.US_ASCII);
  public static final byte[] FEATURES_MAGIC = "FNOFEAT1".getBytes(StandardCharsets.US_ASCII);
  public static final byte[] NODES_MAGIC = "FNONODE1".getBytes(StandardCharsets.US_ASCII);
  public static final byte[] WEIGHTS_MAGIC = "FNOWGT01".getBytes(StandardCharsets.US_ASCII);

  /** Feature encodings; the code is stored in the feature file header. */
  public static final int ENCODING_F32 = 0;

  public static final int ENCODING_F16 = 1;
  public static final int ENCODING_INT8 = 2;
  public static final int ENCODING_INT4 = 3;
  public static final int ENCODING_PQ = 4;

  private static final String[] ENCODING_NAMES = {"f32", "f16", "int8", "int4", "pq"};

  /**
   * The quantization parameters of an encoded store (per-column scale and offset, or the product
   * quantization codebooks); see {@link FeatureParams}.
   */
  public static final String FEATURE_PARAMS = FEATURES_DIR + "/params.qnt";

  public static final byte[] PARAMS_MAGIC = "FNOQNT01".getBytes(StandardCharsets.US_ASCII);

  /**
   * The row order of a store with a {@code feature_layout} ({@link FeatureLayoutKind}): after a
   * {@link #HEADER_BYTES}-byte header, the position of every dense id's row as a little-endian
   * int32, in dense-id order (see {@code docs/formats.md}).
   */
  public static final String FEATURE_ORDER = FEATURES_DIR + "/layout.perm";

  public static final byte[] ORDER_MAGIC = "FNOPERM1".getBytes(StandardCharsets.US_ASCII);

  /** Split codes stored in {@code nodes/} files. */
  public static final byte SPLIT_NONE = 0;

  public static final byte SPLIT_TRAIN = 1;
  public static final byte SPLIT_VAL = 2;
  public static final byte SPLIT_TEST = 3;

  private static final String[] SPLIT_NAMES = {"none", "train", "val", "test"};

  /** The split's name for a code, e.g. {@code 1 -> "train"}. */
  public static String splitName(int code) {
    return SPLIT_NAMES[code];
  }

  /** The code of a split name, or -1 when the name is not one of none, train, val, test. */
  public static int splitCode(String name) {
    for (int i = 0; i < SPLIT_NAMES.length; i++) {
      if (SPLIT_NAMES[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  public static String encodingName(int code) {
    if (code < 0 || code >= ENCODING_NAMES.length) {
      throw new IllegalArgumentException("unknown feature encoding " + code);
    }
    return ENCODING_NAMES[code];
  }

  /** The code of an encoding name, or -1 when the name is not one of f32, f16, int8, int4, pq. */
  public static int encodingCode(String name) {
    for (int i = 0; i < ENCODING_NAMES.length; i++) {
      if (ENCODING_NAMES[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /** The encoding names, in code order, for option choices and messages. */
  public static String[] encodingNames() {
    return ENCODING_NAMES.clone();
  }

  public static String csrFile(int partition) {
    return CSR_DIR + "/" + partFile(partition, "csr");
  }

  public static String featuresFile(int partition) {
    return FEATURES_DIR + "/" + partFile(partition, "feat");
  }

  public static String nodesFile(int partition) {
    return NODES_DIR + "/" + partFile(partition, "nodes");
  }

  /** The edge weights of a partition, aligned with its CSR indices (weighted stores only). */
  public static String weightsFile(int partition) {
    return WEIGHTS_DIR + "/" + partFile(partition, "wgt");
  }

  /**
   * The edge list of held-out split {@code split} ({@code val} or {@code test}): Parquet rows
   * {@code (src_dense, dst_dense, src, dst, label)}, positives (label 1) then negatives (label 0).
   */
  public static String edgeSplitFile(String split) {
    return EDGE_SPLIT_DIR + "/" + split + ".parquet";
  }

  /**
   * The held-out edge list of split {@code split} of relation {@code relation} of a typed store
   * ({@code prepare --link-relation}), laid out as {@link #edgeSplitFile}, in type-local dense ids.
   */
  public static String relationEdgeSplitFile(String relation, String split) {
    return relationDir(relation) + "/" + edgeSplitFile(split);
  }

  /** The folder of a typed store holding one folder per vertex type. */
  public static final String TYPES_DIR = "types";

  /** The folder of a typed store holding one folder per relation. */
  public static final String RELATIONS_DIR = "relations";

  /** The label sets of a multi-label type, inside its type folder. */
  public static final String LABEL_SETS_DIR = "labelsets";

  /**
   * What a type's or relation's name may be, as it names a folder: letters, digits, '_', '-' and
   * '.', starting with a letter or digit, at most 128 characters.
   */
  public static final String NAME_RULE =
      "letters, digits, '_', '-' and '.', starting with a letter or digit, at most 128 characters";

  /** Whether {@code name} follows {@link #NAME_RULE}. */
  public static boolean validName(String name) {
    return name != null && name.length() <= 128 && name.matches("[A-Za-z0-9][A-Za-z0-9_.-]*");
  }

  /**
   * The folder of vertex type {@code type} in a typed store: it holds {@code idmap/}, {@code
   * nodes/}, {@code features/} (and {@code labelsets/}) laid out as a one-table store's, by
   * type-local ids.
   */
  public static String typeDir(String type) {
    return TYPES_DIR + "/" + type;
  }

  /** The folder of relation {@code relation} in a typed store: it holds {@code csr/}. */
  public static String relationDir(String relation) {
    return RELATIONS_DIR + "/" + relation;
  }

  /**
   * The label sets of partition {@code partition} of a multi-label type, relative to its type
   * folder: a file of the {@code csr/} format whose row {@code v} lists the classes of vertex
   * {@code v}, ascending.
   */
  public static String labelSetsFile(int partition) {
    return LABEL_SETS_DIR + "/" + partFile(partition, "csr");
  }

  private static String partFile(int partition, String ext) {
    return String.format(Locale.ROOT, "part-%05d.%s", partition, ext);
  }
}
