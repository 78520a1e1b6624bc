import json, sys, statistics
# one line per thread count: best-round rates and ratio, paired per-round ratios, median and spread
for f in sys.argv[1:]:
    t = open(f).read(); d = json.loads(t[t.index('{'):])
    print(f, 'one-type edges', d['edges'], 'typed edges', d['typed_graph']['edges'], 'peak_rss_mib', d.get('peak_rss_mib'))
    for r in d['sampling']:
        pr = [(r['typed_sampled_edges'] / b) / (r['sampled_edges'] / a)
              for a, b in zip(r['seconds_per_round'], r['typed_seconds_per_round'])]
        print('  threads %d: one-type %.2f M/s, typed %.2f M/s (best rounds), best-round ratio %.3f;'
              ' paired ratios %s; median %.3f, min %.3f, max %.3f, rounds %d; sampled edges %d / %d'
              % (r['threads'], r['sampled_edges_per_s'] / 1e6, r['typed_sampled_edges_per_s'] / 1e6,
                 r['typed_ratio_to_one_type'], ' '.join('%.2f' % x for x in pr), statistics.median(pr),
                 min(pr), max(pr), len(pr), r['sampled_edges'], r['typed_sampled_edges']))
