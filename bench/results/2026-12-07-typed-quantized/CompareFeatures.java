import io.fanout.graph.FeatureTable;
import io.fanout.graph.TypedGraphStore;
import java.nio.file.Path;

/**
 * java -cp CLASSPATH CompareFeatures.java STORE F32_STORE TYPE: type TYPE's decoded feature rows of
 * STORE against those of F32_STORE (the same graph): max and mean absolute error, exact rows.
 */
public class CompareFeatures {
  public static void main(String[] a) {
    try (TypedGraphStore s = TypedGraphStore.open(Path.of(a[0]), true);
        TypedGraphStore r = TypedGraphStore.open(Path.of(a[1]), true)) {
      int t = s.schema().typeIndex(a[2]);
      FeatureTable x = s.features(t);
      FeatureTable y = r.features(t);
      int n = (int) s.schema().type(t).count();
      int dim = x.dim();
      float[] u = new float[dim];
      float[] v = new float[dim];
      double max = 0;
      double sum = 0;
      long exact = 0;
      for (int i = 0; i < n; i++) {
        x.gather(new int[] {i}, 0, 1, u, 0);
        y.gather(new int[] {i}, 0, 1, v, 0);
        boolean same = true;
        for (int c = 0; c < dim; c++) {
          double d = Math.abs((double) u[c] - v[c]);
          max = Math.max(max, d);
          sum += d;
          same &= d == 0;
        }
        exact += same ? 1 : 0;
      }
      System.out.printf(
          "type %s (%s, %d rows of %d): max_abs_error %g mean_abs_error %g exact_rows %d%n",
          a[2], s.schema().type(t).featureEncoding(), n, dim, max, sum / ((double) n * dim), exact);
    }
  }
}
