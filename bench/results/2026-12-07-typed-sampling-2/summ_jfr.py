import sys, re, collections
# parses `jfr print --events jdk.ExecutionSample` text; attributes each sample to typed/one by its stack
txt = open(sys.argv[1]).read()
events = txt.split('jdk.ExecutionSample')
by = collections.Counter(); top = {'typed': collections.Counter(), 'one': collections.Counter()}
lines_by = {'typed': collections.Counter(), 'one': collections.Counter()}
for ev in events[1:]:
    frames = re.findall(r'^\s+([\w.$<>]+)\(.*?\)\s+line:\s*(\d+)', ev, re.M)
    if not frames: continue
    names = [f[0] for f in frames]
    who = 'typed' if any('TypedNeighborSampler' in n or 'TypedBatchBuilder' in n for n in names) else ('one' if any(n.startswith('io.fanout.sample.NeighborSampler') or 'io.fanout.sample.BatchBuilder' in n for n in names) else 'other')
    by[who] += 1
    if who in top:
        top[who]['%s:%s' % frames[0]] += 1
        # first frame inside the sampler classes: the caller line
        for n, l in frames:
            if n.startswith('io.fanout.sample.') and not n.startswith('io.fanout.sample.DedupMap') and not n.startswith('io.fanout.sample.NodeSampler'):
                lines_by[who]['%s:%s' % (n, l)] += 1; break
print('samples by sampler:', dict(by))
for w in ('typed', 'one'):
    print('-- top frames,', w)
    for k, c in top[w].most_common(14): print('  %6d %s' % (c, k))
    print('-- sampler line on the stack,', w)
    for k, c in lines_by[w].most_common(10): print('  %6d %s' % (c, k))
