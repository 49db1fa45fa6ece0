"""Ops real models need beyond the basics: recurrent layers (unrolled over the example's sequence),
scans and index reductions, gather, dilated/ceil_mode pooling, transposed and 1-D convolutions,
resampling and padding modes; each against eager torch within 1e-4."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

from .test_frontend_models import check  # noqa: E402


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 5, num_layers=2, batch_first=True)
        self.gru = nn.GRU(4, 3, bidirectional=True)
        self.lstm_bi = nn.LSTM(4, 2, bidirectional=True, bias=False)

    def forward(self, x, h0):
        a, (h, c) = self.lstm(x)
        g, hg = self.gru(x.transpose(0, 1), h0)
        b, (hb, cb) = self.lstm_bi(x[0])  # unbatched [T, I]
        return a, h, c, g, hg, b, hb, cb


def test_lstm_and_gru():
    torch.manual_seed(0)
    check(Recurrent(), [torch.randn(2, 6, 4), torch.randn(2, 2, 3)])


class Scans(nn.Module):
    def forward(self, x, i):
        return (torch.cumsum(x, 1), x.cumsum(-1), torch.cumprod(x, 0), i.cumsum(0), x.argmax(-1), x.argmin(1),
                x.argmax(), x.argmin(dim=0, keepdim=True), torch.gather(x, 2, x.argmin(-1, keepdim=True).expand(2, 3, 2)),
                torch.gather(x, 0, torch.tensor([[[1, 0, 1, 1]], [[0, 0, 1, 0]]])))


def test_scans_index_reductions_and_gather():
    x = torch.randn(2, 3, 4)
    check(Scans(), [x, torch.tensor([3, -1, 4])])


class Pools(nn.Module):
    def forward(self, img, seq):
        return (F.max_pool2d(img, 2, dilation=2), F.max_pool2d(img, 3, 2, ceil_mode=True),
                F.max_pool2d(img, 3, 2, padding=1, dilation=(1, 2), ceil_mode=True),
                F.avg_pool2d(img, 3, 2, ceil_mode=True), F.avg_pool2d(img, 3, 2, padding=1, count_include_pad=False),
                F.avg_pool2d(img, 2, divisor_override=3), F.avg_pool2d(img, 3, 2, padding=1, ceil_mode=True),
                F.max_pool1d(seq, 3, 2, ceil_mode=True), F.avg_pool1d(seq, 2), F.max_pool2d(img, 2))


def test_dilated_and_ceil_mode_pooling():
    check(Pools(), [torch.randn(1, 2, 7, 8), torch.randn(2, 3, 9)])


class Convs(nn.Module):
    def __init__(self):
        super().__init__()
        self.t1 = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1)
        self.t2 = nn.ConvTranspose2d(4, 4, (2, 3), stride=(1, 2), groups=2, dilation=(2, 1), bias=False)
        self.t3 = nn.ConvTranspose2d(2, 2, 1, padding=0, stride=3)
        self.t1d = nn.ConvTranspose1d(3, 2, 4, stride=2, padding=1)
        self.c1 = nn.Conv1d(3, 4, 3, stride=2, dilation=2, padding=2)
        self.c1g = nn.Conv1d(3, 6, 3, groups=3, padding="same")

    def forward(self, img, img4, seq):
        return self.t1(img), self.t2(img4), self.t3(img), self.t1d(seq), self.c1(seq), self.c1g(seq), self.c1(seq[0])


def test_transposed_and_1d_convolutions():
    torch.manual_seed(0)
    check(Convs(), [torch.randn(1, 2, 5, 6), torch.randn(1, 4, 3, 4), torch.randn(2, 3, 10)])


class Resample(nn.Module):
    def forward(self, img, seq):
        return (F.interpolate(img, scale_factor=2, mode="nearest"), F.interpolate(img, size=(7, 5), mode="nearest"),
                F.interpolate(img, scale_factor=2, mode="bilinear"), nn.Upsample(scale_factor=1.5, mode="bilinear")(img),
                F.interpolate(img, size=(5, 7), mode="bilinear", align_corners=True),
                F.interpolate(img, size=(3, 2), mode="bilinear"), F.interpolate(seq, scale_factor=3, mode="nearest"),
                F.pad(img, (1, 2, 1, 0), mode="reflect"), F.pad(img, (2, 2, 1, 1), mode="replicate"),
                F.pad(img, (1, 1, 2, 0), mode="circular"), F.pad(seq, (2, 1), mode="reflect"),
                F.pad(img, (1, -1, 0, 2), value=0.5))


def test_upsample_interpolate_and_pad_modes():
    check(Resample(), [torch.randn(1, 2, 4, 5), torch.randn(1, 2, 6)])


def test_recurrent_sequence_is_the_example_length():
    from allo.frontend import import_model

    imported = import_model(nn.GRU(3, 2).eval(), [torch.randn(5, 1, 3)])
    assert "for s in range(5):" in imported.source
    mod = imported.build("llvm")
    with pytest.raises(Exception, match="shape"):
        mod(np.zeros((6, 1, 3), np.float32))


class Mixed(nn.Module):
    """The generated kernels of the new ops in one model, for the HLS C simulation."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(3, 4, batch_first=True)
        self.up = nn.ConvTranspose2d(1, 2, 3, stride=2, padding=1)

    def forward(self, seq, img):
        g, _ = self.gru(seq)
        pooled = F.max_pool2d(F.pad(img, (1, 1, 2, 0), mode="reflect"), 3, 2, ceil_mode=True, dilation=1)
        big = F.interpolate(self.up(img), scale_factor=2, mode="bilinear")
        return g.cumsum(1), g.argmax(-1), torch.gather(g, 2, g.argmin(-1, keepdim=True)), pooled, big


def test_new_ops_in_hls_csim_match_llvm(tmp_path):
    import shutil

    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    import allo

    torch.manual_seed(0)
    model, inputs = Mixed().eval(), [torch.randn(1, 5, 3), torch.randn(1, 1, 5, 6)]
    llvm = allo.frontend.from_pytorch(model, inputs, verbose=False)
    csim = allo.frontend.from_pytorch(model, inputs, target="vhls", mode="csim", project=str(tmp_path / "p"),
                                      verbose=False)
    arrays = [x.numpy() for x in inputs]
    for got, want, ref in zip(csim(*arrays), llvm(*arrays), model(*inputs)):
        np.testing.assert_allclose(got, want, atol=1e-5)
        np.testing.assert_allclose(got, ref.detach().numpy(), atol=1e-4)
