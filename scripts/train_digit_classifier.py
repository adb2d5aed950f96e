#!/usr/bin/env python3
"""Trains the digit classifier that Graphs/digit_classifier.pbtxt runs.

Data: OpenCV's digits.png (Debian opencv-doc, /usr/share/doc/opencv-doc/examples/data/):
5000 handwritten digits, 20×20 each, 100 per row, 500 per class (class = row // 5).
Split: 80/20, fixed by seed 2026 (numpy RandomState). The held-out indices are written to
Models/digit_classifier.heldout.txt so the tests evaluate exactly the images the network
never saw.

Preprocessing is the graph's: grey, the 20×20 digit centred in a 28×28 black canvas,
[0, 1], then (x - 0.1307) / 0.3081. Training adds small random shifts, scales, rotations
uneven grey backgrounds, blur and noise so that a digit photographed on a larger, noisy canvas still classifies.

Outputs (committed): Models/digit_classifier.onnx (input "image" [1,1,28,28], output
"logits" [1,10]), Models/digits.txt, Models/digit_classifier.heldout.txt.

Needs torch (CPU), onnx, opencv-python-headless; a run takes about a minute on 2 cores:
    python3 scripts/train_digit_classifier.py
"""
import os
import sys

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIGITS = "/usr/share/doc/opencv-doc/examples/data/digits.png"
MEAN, STD = 0.1307, 0.3081
SEED = 2026


def load_digits(path=DIGITS):
    img = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    if img is None or img.shape != (1000, 2000):
        sys.exit(f"{path}: missing or not the 2000×1000 digits sheet (apt-get install opencv-doc)")
    cells = img.reshape(50, 20, 100, 20).transpose(0, 2, 1, 3).reshape(5000, 20, 20)
    labels = np.repeat(np.arange(10), 500)
    return cells, labels


def split(n=5000, seed=SEED):
    order = np.random.RandomState(seed).permutation(n)
    cut = n * 8 // 10
    return np.sort(order[:cut]), np.sort(order[cut:])


def to_input(cells):
    """20×20 uint8 cells → normalised [N, 1, 28, 28] float32, as the graph makes them."""
    canvas = np.zeros((len(cells), 28, 28), np.float32)
    canvas[:, 4:24, 4:24] = cells.astype(np.float32) / 255.0
    return ((canvas - MEAN) / STD)[:, None]


def augment(cells, rng):
    out = np.empty_like(cells)
    for i, c in enumerate(cells):
        angle = rng.uniform(-12, 12)
        scale = rng.uniform(0.8, 1.1)
        m = cv2.getRotationMatrix2D((9.5, 9.5), angle, scale)
        m[:, 2] += rng.uniform(-2, 2, size=2)
        out[i] = cv2.warpAffine(c, m, (20, 20), flags=cv2.INTER_LINEAR, borderValue=0)
    out = out.astype(np.float32)
    # A third of the images get a photographed look: uneven grey paper, blur, sensor noise.
    photo = rng.rand(len(out)) < 0.3
    yy, xx = np.mgrid[0:20, 0:20] / 19.0
    for i in np.nonzero(photo)[0]:
        gx, gy = rng.uniform(-30, 30, size=2)
        paper = rng.uniform(0, 70) + gx * (xx - 0.5) + gy * (yy - 0.5)
        img = np.maximum(out[i] * rng.uniform(0.7, 1.0), paper)
        if rng.rand() < 0.5:
            img = cv2.GaussianBlur(img, (3, 3), 0.8)
        out[i] = img + rng.normal(0, rng.uniform(0, 25), size=img.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 7 * 7, 64)
        self.drop = nn.Dropout(0.1)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        return self.fc2(self.drop(F.relu(self.fc1(x))))


def main():
    torch.manual_seed(SEED)
    torch.set_num_threads(2)
    rng = np.random.RandomState(SEED)
    cells, labels = load_digits()
    train_idx, test_idx = split()
    net = Net()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.3)
    x_test = torch.from_numpy(to_input(cells[test_idx]))
    y_test = torch.from_numpy(labels[test_idx])
    for epoch in range(30):
        net.train()
        order = rng.permutation(train_idx)
        aug = augment(cells[order], rng)
        x = torch.from_numpy(to_input(aug))
        y = torch.from_numpy(labels[order])
        for b in range(0, len(order), 64):
            opt.zero_grad()
            loss = F.cross_entropy(net(x[b:b + 64]), y[b:b + 64])
            loss.backward()
            opt.step()
        sched.step()
        net.eval()
        with torch.no_grad():
            acc = (net(x_test).argmax(1) == y_test).float().mean().item()
        print(f"epoch {epoch + 1}: loss {loss.item():.4f}, held-out accuracy {acc * 100:.2f} %")

    models = os.path.join(ROOT, "Models")
    os.makedirs(models, exist_ok=True)
    path = os.path.join(models, "digit_classifier.onnx")
    torch.onnx.export(net, torch.zeros(1, 1, 28, 28), path, input_names=["image"], output_names=["logits"],
                      opset_version=13, dynamo=False)
    with open(os.path.join(models, "digits.txt"), "w") as f:
        f.write("".join(f"{d}\n" for d in range(10)))
    with open(os.path.join(models, "digit_classifier.heldout.txt"), "w") as f:
        f.write("# digits.png cell indices (row-major, 100 per row) held out from training, seed 2026\n")
        f.write("".join(f"{i}\n" for i in test_idx))
    print(f"wrote {path} ({os.path.getsize(path)} bytes), held-out accuracy {acc * 100:.2f} %")


if __name__ == "__main__":
    main()
