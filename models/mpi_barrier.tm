# MPI_Barrier over Ethernet alone (the reference of Hayakawa's paper [H]): a dissemination
# barrier takes about log2 N message rounds, so its time grows with log2 N.
# Fit it to data/mpi_barrier.csv (SYNTHETIC) and compare with the chassis
# network: errband barrier --mpi-model models/mpi_barrier.tm --mpi-data data/mpi_barrier.csv
T(N) = c0 + c1*log2(N)
param c0, c1
predict N = 30, 64, 120
unit T = us, N = nodes
