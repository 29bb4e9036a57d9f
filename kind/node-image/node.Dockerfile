# A kind node image, for machines where kindest/node cannot be pulled (kind/node-image.sh builds the context):
# what kind v0.33.0's base image is (its files under kind-base/, taken from the kind module that go.sum pins), on the
# Debian base, with containerd, runc, crictl and the CNI plugins built from source, then Kubernetes' node programs.
# The control-plane images are preloaded afterwards, as `kind build node-image` does (docker run + ctr import +
# docker commit), since that needs containerd running.
ARG BASE
FROM ${BASE}

COPY kind-base/usr/local/bin/ /usr/local/bin/
COPY kind-base/kind/ /kind/
COPY kind-base/etc/ /etc/
RUN chmod 0755 /usr/local/bin/* /kind /kind/bin /kind/bin/* \
 && echo "Installing packages ..." \
 && DEBIAN_FRONTEND=noninteractive clean-install \
      systemd conntrack iptables nftables iproute2 ethtool util-linux mount kmod libseccomp2 pigz e2fsprogs \
      bash ca-certificates curl jq procps \
 && find /lib/systemd/system/sysinit.target.wants/ -name "systemd-tmpfiles-setup.service" -delete \
 && rm -f /lib/systemd/system/multi-user.target.wants/* /etc/systemd/system/*.wants/* \
      /lib/systemd/system/local-fs.target.wants/* /lib/systemd/system/sockets.target.wants/*udev* \
      /lib/systemd/system/sockets.target.wants/*initctl* /lib/systemd/system/basic.target.wants/* \
 && echo "ReadKMsg=no" >> /etc/systemd/journald.conf \
 && ln -sf /usr/lib/systemd/systemd /sbin/init \
 && systemctl enable kubelet.service containerd.service undo-mount-hacks.service \
 && systemctl mask systemd-binfmt.service \
 && mkdir -p /etc/kubernetes/manifests

COPY bin/containerd bin/containerd-shim-runc-v2 bin/ctr bin/crictl /usr/local/bin/
COPY bin/runc /usr/local/sbin/runc
COPY bin/cni/ /opt/cni/bin/
# containerd's base OCI spec, as kind makes it: its product-files hook added, rlimits left to the runtime.
RUN ctr oci spec \
      | jq '.hooks.createContainer[.hooks.createContainer | length] |= . + {"path": "/kind/bin/mount-product-files.sh"}' \
      | jq 'del(.process.rlimits)' > /etc/containerd/cri-base.json \
 && containerd --version && runc --version && crictl --version

COPY bin/kubelet bin/kubeadm bin/kubectl /usr/bin/
COPY node-files/ /
ARG KUBERNETES_VERSION
RUN echo "$KUBERNETES_VERSION" > /kind/version && kubeadm version -o short

ENV container=docker
STOPSIGNAL SIGRTMIN+3
ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]
