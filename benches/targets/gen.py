# Deterministic data for benches/targets/run.sh: Amdahl on distinct points, a degree-8 polynomial.
# Usage: gen.py OUT_DIR
import sys, os, random
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rnd = random.Random(20261126)
# Amdahl on 4000 distinct processor counts.
with open(f"{out}/amdahl.tm", "w") as f:
    f.write("T(p) = a + b/p\nparam a, b\npredict p = 8192, 16384\n")
with open(f"{out}/amdahl_4000.csv", "w") as f:
    f.write("p,T\n")
    for p in range(1, 4001):
        t = (100 + 5000 / p) * (1 + rnd.uniform(-0.02, 0.02))
        f.write(f"{p},{t:.6g}\n")
# prune over 1000 distinct points.
with open(f"{out}/amdahl_1000.csv", "w") as f:
    f.write("p,T\n")
    for p in range(1, 1001):
        t = (100 + 5000 / p) * (1 + rnd.uniform(-0.02, 0.02))
        f.write(f"{p},{t:.6g}\n")
# Degree-8 polynomial on 30 points.
with open(f"{out}/poly8.tm", "w") as f:
    f.write("T(p) = c0 + c1*p + c2*p^2 + c3*p^3 + c4*p^4 + c5*p^5 + c6*p^6 + c7*p^7 + c8*p^8\nparam c0, c1, c2, c3, c4, c5, c6, c7, c8\npredict p = 40, 60\n")
with open(f"{out}/poly8.csv", "w") as f:
    f.write("p,T\n")
    for p in range(1, 31):
        x = p / 30
        t = (1 + 2*x + 0.5*x**3 + 0.1*x**8) * (1 + rnd.uniform(-0.01, 0.01))
        f.write(f"{p},{t:.6g}\n")
