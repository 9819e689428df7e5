"""non_blocking copies of torch tensors (the stand-in) and the host's
accesses to them: 09 (a read before the copy to the host is done), 19 (a
write into a pinned source before the copy to the device has read it), and
the same accesses after a wait, which are clean."""
import torch

dev = torch.empty(256)
host = dev.to("cpu", non_blocking=True)
print("read too early:", host.numpy()[:1])  # 09
torch.cuda.synchronize()
print("read after the wait:", host[0].item())  # clean

staging = torch.empty(256, pin_memory=True)
dev.copy_(staging, non_blocking=True)
staging.fill_(1)  # 19
done = torch.cuda.Event()
dev.copy_(staging, non_blocking=True)
done.record()
done.synchronize()
staging.fill_(2)  # clean: the copy has run
pageable = torch.empty(256, device="cpu")
dev.copy_(pageable, non_blocking=True)
pageable.fill_(3)  # clean: from pageable memory the copy is done on return
print("done")
