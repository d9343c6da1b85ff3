# The 4-SU SuperPOD with storage sized for a checkpoint, a dataset read rate, a capacity and the RA's "better"
# tier: the Storage section lists each requirement, the appliances it alone needs and the one that binds.
plan examples/dgx-h100-superpod-4su-storage.yaml
