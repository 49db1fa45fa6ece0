"""PyTorch's own quantized models (torch.ao dynamic or static int8) are refused with what to do
instead: their packed int8 kernels (quantized::linear_dynamic, quantize_per_tensor, ...) have no
allo equivalent, and allo's quantizer reaches the same int8 arithmetic from the float model.

Example::

    qmodel = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
    from_pytorch(qmodel, [x])   # FrontendError: ... import the float model with precision='int8' ...
"""
from __future__ import annotations

from ...errors import FrontendError

_QUANT_PACKAGES = ("torch.ao.nn.quantized", "torch.ao.nn.intrinsic.quantized", "torch.nn.quantized",
                   "torch.ao.nn.qat", "torch.ao.quantization")


def reject_torch_quantized(model):
    """FrontendError when `model` holds torch.ao quantized modules, quant stubs with observers or
    quantized tensors."""
    import torch

    if not isinstance(model, torch.nn.Module):
        return
    for name, module in model.named_modules():
        mod = type(module).__module__ or ""
        if mod.startswith(_QUANT_PACKAGES) and type(module).__name__ not in ("QuantStub", "DeQuantStub") \
                or (type(module).__name__ == "QuantStub" and hasattr(module, "activation_post_process")):
            kind = "dynamic" if ".dynamic" in mod else "static" if ".quantized" in mod else "prepared (observed)"
            raise FrontendError(
                f"{type(model).__name__} is a torch.ao {kind} quantized model (module {name or '<top>'!r} is "
                f"{mod}.{type(module).__name__}); allo cannot import torch's packed int8 kernels. Import the float "
                "model instead and let allo quantize it: from_pytorch(float_model, example_inputs, precision='int8', "
                "calibration_data=[[x1], [x2], ...]) (int8 weights and activations, int32 accumulation)")
    for name, t in list(model.named_parameters()) + list(model.named_buffers()):
        if t.is_quantized:
            raise FrontendError(f"{type(model).__name__} holds the quantized tensor {name!r} ({t.dtype}); import the "
                                "float model with precision='int8' and calibration_data= instead")
