"""Quantized import for `from_pytorch(..., precision=, calibration_data=)` (docs/quantization.md):

    config.py     precision configs (hls4ml-like) resolved per graph node
    calibrate.py  the captured graph run with torch on calibration batches: per-value ranges
    fold.py       BatchNorm folded into the conv / linear before it
    plan.py       QuantPlan, the TypePlan that lowers quantized (and dequantizes float) values
    kernels.py    linear / conv / matmul -> nn.qlinear / qconv2d / qmatmul / qbmm + requantization
    report.py     ImportedModel.quant_report(): types, ranges, measured error per layer
    torch_ao.py   torch.ao quantized models refused with what to do
"""
