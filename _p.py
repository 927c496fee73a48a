import time, numpy as np
from estimators.ustatistics import variance_kernel
from estimators.ustatistics._enumeration import iter_pair_blocks, default_block_size
n=10000; x=np.random.default_rng(0).uniform(0,1,n); k=variance_kernel(0,1)
bs = default_block_size(n)
t=time.perf_counter(); blocks=list(iter_pair_blocks(n, bs)); t1=time.perf_counter(); print("gen", t1-t, bs)
tot=0
t=time.perf_counter()
vals=[k.function(x,b) for b in blocks]; t2=time.perf_counter(); print("eval", t2-t)
t=time.perf_counter()
for v,b in zip(vals,blocks): k.check_range(v,b)
print("range", time.perf_counter()-t)
t=time.perf_counter()
for v,b in zip(vals,blocks):
    np.bincount(b[:,0], weights=v, minlength=n); np.bincount(b[:,1], weights=v, minlength=n)
print("bincount", time.perf_counter()-t)
