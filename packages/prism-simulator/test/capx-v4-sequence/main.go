// Follows CAPX v1.10.3's machine create and delete sequence against the prism-simulator, call for call, with the
// clients CAPX uses: prism-go-client v0.8.0's converged v4 client (over Nutanix's v4.2 SDKs, at the versions CAPX's
// go.mod pins) for everything but the v3 client's construction (GET /users/me), which CAPX still does first. The
// sequence is docs/capx-v4-sequence.md; each step cites the CAPX source it copies (CAPX = cluster-api-provider-nutanix
// @ v1.10.3, PGC = prism-go-client @ v0.8.0). CAPX's own helpers are copied where they decide what is called (the
// lookups' filters, what is skipped); the Kubernetes objects they read are replaced by the values below.
//
// It fails (exit 1) on any error, on any answer the SDK could not decode completely (sdkdecoding), and on any answer
// CAPX would wait or retry on forever (a task wait that does not end; a delete CAPX would repeat). It prints one
// `call:` line per step and `OK` at the end.
//
// Configuration (environment): SIM_HOST, SIM_PORT, SIM_USERNAME, SIM_PASSWORD; CAPI_CLUSTER (the CAPI Cluster's
// name), MACHINE (the Machine's name), PE_NAME, SUBNET_NAME, IMAGE_NAME, GPU_NAME, EXTRA_CATEGORY (key=value, an
// additionalCategories entry), BOOTSTRAP_DATA; PAUSE_AFTER_CREATE=1 waits for a line on stdin between create and delete; SSL_CERT_FILE names the simulator's CA, so TLS is verified as with a
// real Prism Central (CAPX: insecure false, no additionalTrustBundle). With V3_ABSENT=1 (a Prism Central serving only
// v4) it expects the v3 client's construction to fail, as CAPX would see it, and reports that instead of going on.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/nutanix-cloud-native/prism-go-client/converged"
	v4Converged "github.com/nutanix-cloud-native/prism-go-client/converged/v4"
	"github.com/nutanix-cloud-native/prism-go-client/environment/types"
	v3 "github.com/nutanix-cloud-native/prism-go-client/v3"
	v4 "github.com/nutanix-cloud-native/prism-go-client/v4"
	clusterModels "github.com/nutanix/ntnx-api-golang-clients/clustermgmt-go-client/v4/models/clustermgmt/v4/config"
	prismModels "github.com/nutanix/ntnx-api-golang-clients/prism-go-client/v4/models/prism/v4/config"
	vmmconfig "github.com/nutanix/ntnx-api-golang-clients/vmm-go-client/v4/models/vmm/v4/ahv/config"
	imageModels "github.com/nutanix/ntnx-api-golang-clients/vmm-go-client/v4/models/vmm/v4/content"
	sdkdecoding "prism-simulator.test/sdk-decoding"
)

// CAPX api/v1beta1/nutanix_types.go:50-59 and controllers/helpers.go (providerIdPrefix, vmCustomAttributePrefix4ProviderID).
const (
	defaultCAPICategoryKeyForName         = "KubernetesClusterName"
	defaultCAPICategoryDescription        = "Managed by CAPX"
	obsoleteDefaultCAPICategoryPrefix     = "kubernetes-io-cluster-"
	obsoleteDefaultCAPICategoryOwnedValue = "owned"
	vmCustomAttributePrefix4ProviderID    = "providerid:"
	// How long a task wait may take before the program calls it endless: PGC's Operation.Wait has no timeout of its
	// own (PGC converged/v4/structs.go:177-271), so a task that never ends would hold CAPX's reconcile forever.
	taskWaitLimit = 60 * time.Second
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "FAIL: "+format+"\n", args...)
	os.Exit(1)
}

func call(format string, args ...any) {
	fmt.Printf("call: "+format+"\n", args...)
}

func mustEnv(name string) string {
	value := os.Getenv(name)
	if value == "" {
		fail("environment variable %s is not set", name)
	}
	return value
}

func ptr[T any](v T) *T { return &v }

// check fails on err, saying whether CAPX would retry it (CAPX helpers.go:110-127 isRetryableAPIError) or stop.
func check(what string, err error) {
	if err == nil {
		return
	}
	fail("%s: %v\n(CAPX: %s)", what, err, capxReaction(err))
}

func capxReaction(err error) string {
	var apiErr *converged.APIError
	switch {
	case converged.IsNotFound(err):
		return "not retryable: NotFound"
	case converged.IsRateLimit(err), converged.IsInternal(err):
		return "retryable: rate limit or internal error, requeued"
	case errors.As(err, &apiErr):
		return "not retryable: an API error with no kind sets FailureReason on the create path"
	default:
		return "retryable: not an API error, requeued with backoff"
	}
}

// decoded fails when the SDK could not place part of value.
func decoded(what string, value any) {
	if err := sdkdecoding.Check(what, value); err != nil {
		fail("%v", err)
	}
}

// wait runs a PGC Operation.Wait, failing when it would never end (see taskWaitLimit).
func wait[T any](ctx context.Context, what string, op converged.Operation[T]) []*T {
	waitCtx, cancel := context.WithTimeout(ctx, taskWaitLimit)
	defer cancel()
	results, err := op.Wait(waitCtx)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(waitCtx.Err(), context.DeadlineExceeded) {
		fail("%s: task %s did not end within %s; PGC's Operation.Wait has no timeout, so CAPX would wait forever (status %s)", what, op.UUID(), taskWaitLimit, op.Status())
	}
	check(what+": task "+op.UUID(), err)
	return results
}

// cacheParams is CAPX's pkg/client/cache.go:22-35 CacheParams: keyed on the NutanixCluster's namespace/name.
type cacheParams struct {
	key      string
	endpoint types.ManagementEndpoint
}

func (c *cacheParams) Key() string                                  { return c.key }
func (c *cacheParams) ManagementEndpoint() types.ManagementEndpoint { return c.endpoint }

type machine struct {
	capiCluster, name, peName, subnetName, imageName, gpuName string
	extraCategory                                             [2]string
	bootstrapData                                             []byte
}

func main() {
	ctx := context.Background()
	address, err := url.Parse(fmt.Sprintf("https://%s:%s", mustEnv("SIM_HOST"), mustEnv("SIM_PORT")))
	check("address", err)
	// PGC environment/providers/kubernetes/kubernetes.go:55-72: the endpoint CAPX builds from NutanixCluster.spec.prismCentral
	// and its basic_auth credentials Secret.
	params := &cacheParams{key: "default/capx-sequence", endpoint: types.ManagementEndpoint{
		ApiCredentials: types.ApiCredentials{Username: mustEnv("SIM_USERNAME"), Password: mustEnv("SIM_PASSWORD")},
		Address:        address,
	}}
	extra := strings.SplitN(mustEnv("EXTRA_CATEGORY"), "=", 2)
	if len(extra) != 2 {
		fail("EXTRA_CATEGORY must be key=value")
	}
	m := machine{
		capiCluster: mustEnv("CAPI_CLUSTER"), name: mustEnv("MACHINE"), peName: mustEnv("PE_NAME"),
		subnetName: mustEnv("SUBNET_NAME"), imageName: mustEnv("IMAGE_NAME"), gpuName: mustEnv("GPU_NAME"),
		extraCategory: [2]string{extra[0], extra[1]}, bootstrapData: []byte(mustEnv("BOOTSTRAP_DATA")),
	}

	// CAPX pkg/client/cache.go:13,19: the process-wide client caches.
	v3Cache := v3.NewClientCache(v3.WithSessionAuth(true))
	convergedCache := v4Converged.NewClientCache(v4.WithSessionAuth(true))

	// P0. CAPX nutanixmachine_controller.go:274 (and the cluster controller) → helpers.go:1160 getPrismCentralClientForCluster:
	// building the v3 client sends GET /api/nutanix/v3/users/me (PGC internal/client.go:223-228,268-289).
	_, err = v3Cache.GetOrCreate(params)
	if os.Getenv("V3_ABSENT") == "1" {
		if err == nil {
			fail("V3_ABSENT=1 but the v3 client was built: the simulator still answers GET /api/nutanix/v3/users/me")
		}
		call("v3 GET /users/me fails: %v", err)
		// helpers.go:1161-1172: CAPX marks PrismCentralClientCondition false and returns the error; the reconcile
		// is requeued with backoff and no v4 call is ever made.
		fmt.Printf("CAPX stops: nutanix prism v3 Client error, requeued (%s)\n", capxReaction(err))
		fmt.Println("OK")
		return
	}
	check("v3 client (GET /users/me)", err)
	call("v3 GET /users/me")
	// CAPX nutanixmachine_controller.go:280 → helpers.go:1205: the converged v4 client; building it sends nothing.
	client, err := convergedCache.GetOrCreate(params)
	check("converged v4 client", err)

	// P2/P3. NutanixCluster reconcile: nutanixcluster_controller.go:667-689 reconcileCategories →
	// helpers.go:766-780 GetOrCreateCategories → getOrCreateCategory (helpers.go:866-897).
	defaultCategories := [][2]string{{defaultCAPICategoryKeyForName, m.capiCluster}}
	getOrCreateCategories(ctx, client, defaultCategories)

	vm := reconcileMachine(ctx, client, m, "")
	vmUUID := *vm.ExtId
	// A later reconcile (until Ready): FindVM by the UUID now in status.vmUUID; nothing else is called (§3.4).
	again := reconcileMachine(ctx, client, m, vmUUID)
	if *again.ExtId != vmUUID {
		fail("the second reconcile found another VM: %s", *again.ExtId)
	}
	if os.Getenv("PAUSE_AFTER_CREATE") == "1" {
		// The test inspects the simulator between the create and the delete; the clients (and their negotiated
		// versions and cookies) stay as a running controller keeps them.
		fmt.Printf("created %s; waiting for a line on stdin to delete it\n", vmUUID)
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			fail("reading stdin: %v", err)
		}
	}
	deleteMachine(ctx, client, m, vmUUID)
	// Cluster deletion: nutanixcluster_controller.go:691-719 reconcileCategoriesDelete → helpers.go:846-864 DeleteCategories.
	deleteCategories(ctx, client, defaultCategories, [][2]string{{obsoleteDefaultCAPICategoryPrefix + m.capiCluster, obsoleteDefaultCAPICategoryOwnedValue}})
	fmt.Println("OK")
}

// reconcileMachine is reconcileNormal (nutanixmachine_controller.go:455-575) from getOrCreateVM to the addresses.
func reconcileMachine(ctx context.Context, client *v4Converged.Client, m machine, knownUUID string) *vmmconfig.Vm {
	vm := getOrCreateVM(ctx, client, m, knownUUID)
	// nutanixmachine_controller.go:516 → :1487-1514 addCustomAttributes: only while no providerid: attribute is there.
	if !slices.ContainsFunc(vm.CustomAttributes, func(attr string) bool { return strings.HasPrefix(attr, vmCustomAttributePrefix4ProviderID) }) {
		desired := vmCustomAttributePrefix4ProviderID + *vm.ExtId
		// PGC vms.go:311-365: GET (ETag), POST $actions/add-custom-attributes with If-Match, wait, GET each entity.
		op, err := client.VMs.AddVmCustomAttributesAsync(*vm.ExtId, []string{desired})
		check("AddVmCustomAttributes", err)
		results := wait(ctx, "AddVmCustomAttributes", op)
		if len(results) == 0 {
			// PGC vms.go:353-356: "operation completed but no VM returned", retryable: CAPX would requeue forever.
			fail("AddVmCustomAttributes: the task affected no VM; CAPX would requeue forever")
		}
		decoded("AddVmCustomAttributes result", results[0])
		if !slices.Contains(results[0].CustomAttributes, desired) {
			fail("AddVmCustomAttributes: the VM has %v, not %s", results[0].CustomAttributes, desired)
		}
		call("add custom attribute %s (GET for the ETag, POST with If-Match, task, GET)", desired)
	}
	// nutanixmachine_controller.go:522-528 → :1519-1552 powerOnVM, only when not ON.
	if vm.PowerState == nil || *vm.PowerState != vmmconfig.POWERSTATE_ON {
		op, err := client.VMs.PowerOnVM(*vm.ExtId) // PGC vms.go:251-279: GET (ETag), POST $actions/power-on with If-Match.
		check("PowerOnVM", err)
		wait(ctx, "PowerOnVM", op)
		vm = findVMByUUID(ctx, client, *vm.ExtId)
		if vm == nil {
			fail("the VM is gone after power-on")
		}
		call("power on (GET for the ETag, POST with If-Match, task, GET), then GET the VM")
	}
	if *vm.PowerState != vmmconfig.POWERSTATE_ON {
		fail("the VM is %s after power-on", vm.PowerState.GetName())
	}
	// nutanixmachine_controller.go:550 → :1826-1844 assignAddressesToMachine.
	var addresses []string
	for _, nic := range vm.Nics {
		addresses = append(addresses, addressesOfNic(nic)...)
	}
	if len(addresses) == 0 {
		// :1833: "unable to determine network interfaces from VM", requeued until the VM has an address.
		fail("no address on VM %s: CAPX would requeue until one shows", *vm.Name)
	}
	call("addresses %v and hostname %s", addresses, *vm.Name)
	return vm
}

// getOrCreateVM is nutanixmachine_controller.go:1315-1485.
func getOrCreateVM(ctx context.Context, client *v4Converged.Client, m machine, knownUUID string) *vmmconfig.Vm {
	// A. FindVM (helpers.go:198-254): by the UUID once status.vmUUID is set, else by name.
	if knownUUID != "" {
		vm := findVMByUUID(ctx, client, knownUUID)
		if vm == nil {
			fail("no vm %s found with UUID %s but was expected to be present", m.name, knownUUID)
		}
		if *vm.Name != m.name {
			fail("found VM with UUID %s but name %s did not match %s", knownUUID, *vm.Name, m.name)
		}
		call("find the VM by UUID: GET vms/%s", knownUUID)
		return vm
	}
	// helpers.go:226-254 FindVMByName.
	vms, err := client.VMs.List(ctx, converged.WithFilter(fmt.Sprintf("name eq '%s'", m.name)))
	check("list VMs by name", err)
	decoded("VMs by name", vms)
	if len(vms) != 0 {
		fail("a VM named %s exists before the create: %d found", m.name, len(vms))
	}
	call("find the VM by name: none")

	// :1337-1346 the Vm is a struct literal (no $objectType at its top).
	vm := &vmmconfig.Vm{
		Name:                  &m.name,
		MemorySizeBytes:       ptr(int64(4 << 30)),
		NumCoresPerSocket:     ptr(1),
		NumSockets:            ptr(2),
		HardwareClockTimezone: ptr("UTC"),
	}
	// B. :1348 GetSubnetAndPEUUIDs (:1972-1988): the PE by name, then each subnet by name.
	pe := getPEClusterByName(ctx, client, m.peName)
	peUUID := *pe.ExtId
	subnetUUID := getSubnetUUIDByName(ctx, client, peUUID, m.subnetName)
	vm.Cluster = vmmconfig.NewClusterReference()
	vm.Cluster.ExtId = &peUUID
	nic := vmmconfig.NewNic()
	nic.NetworkInfo = vmmconfig.NewNicNetworkInfo()
	nic.NetworkInfo.Subnet = vmmconfig.NewSubnetReference()
	nic.NetworkInfo.Subnet.ExtId = &subnetUUID
	vm.Nics = []vmmconfig.Nic{*nic}

	// C5/C6. :1378 getMachineCategoryIdentifiers (:1846-1881): get-or-create the default category (errors ignored),
	// then :1387 GetPrismReferencesOfCategoryIdentifiers (helpers.go:900-937) lists each category again.
	identifiers := [][2]string{{defaultCAPICategoryKeyForName, m.capiCluster}}
	getOrCreateCategories(ctx, client, identifiers)
	identifiers = append(identifiers, m.extraCategory)
	vm.Categories = categoryReferences(ctx, client, identifiers)
	// C7. :1396 addVMToProject (:1923-1970): spec.project is unset here, so no v3 project call.
	// C8. :1405 GetGPUList (helpers.go:995-1080).
	vm.Gpus = []vmmconfig.Gpu{*getGPU(ctx, client, peUUID, m.gpuName)}
	// C9/C10. :1414 getDiskList → getSystemDisk (:1630-1678): the image by name, the image-deletion guard.
	image := getImageByName(ctx, client, m.imageName)
	if imageMarkedForDeletion(ctx, client, image) {
		fail("system disk image %s is being deleted", *image.ExtId)
	}
	vm.Disks = []vmmconfig.Disk{*systemDisk(*image.ExtId, 40<<30)}
	// :1423 addGuestCustomizationToVM (:1554-1598).
	addGuestCustomization(vm, m)

	// C13. :1437 VMs.Create (PGC vms.go:100-119): POST vms, Operation.Wait (GET tasks/{id} each second), GET each VM.
	op, err := client.VMs.CreateAsync(ctx, vm)
	check("create VM", err)
	results := wait(ctx, "create VM", op)
	if len(results) == 0 {
		fail("create VM: the task affected no VM (PGC: \"operation completed but no VM returned\")")
	}
	created := results[0]
	decoded("created VM", created)
	call("create the VM: POST vms, task %s, GET vms/%s", op.UUID(), *created.ExtId)
	return created
}

// findVMByUUID is helpers.go:155-172: nil on a 404.
func findVMByUUID(ctx context.Context, client *v4Converged.Client, vmUUID string) *vmmconfig.Vm {
	vm, err := client.VMs.Get(ctx, vmUUID)
	if converged.IsNotFound(err) {
		return nil
	}
	check("GET VM "+vmUUID, err)
	decoded("GET VM", vm)
	return vm
}

// getPEClusterByName is helpers.go:282-310 (by name): EqualFold on the name and an AOS cluster function.
func getPEClusterByName(ctx context.Context, client *v4Converged.Client, name string) *clusterModels.Cluster {
	clusters, err := client.Clusters.List(ctx, converged.WithFilter(fmt.Sprintf("name eq '%s'", name)))
	check("list clusters by name", err)
	decoded("clusters by name", clusters)
	var found []clusterModels.Cluster
	for _, c := range clusters {
		if strings.EqualFold(*c.Name, name) && hasPEClusterServiceEnabled(&c) {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		fail("Prism Element cluster %s: %d AOS clusters match (CAPX needs exactly one)", name, len(found))
	}
	call("resolve the Prism Element cluster %s: %s", name, *found[0].ExtId)
	return &found[0]
}

// hasPEClusterServiceEnabled is helpers.go:980-992.
func hasPEClusterServiceEnabled(peCluster *clusterModels.Cluster) bool {
	if peCluster.Config == nil || peCluster.Config.ClusterFunction == nil {
		return false
	}
	for _, s := range peCluster.Config.ClusterFunction {
		if strings.ToUpper(s.GetName()) == clusterModels.CLUSTERFUNCTIONREF_AOS.GetName() {
			return true
		}
	}
	return false
}

// getSubnetUUIDByName is helpers.go:542-593 (by name) with subnetBelongsToCluster (helpers.go:527-539).
func getSubnetUUIDByName(ctx context.Context, client *v4Converged.Client, peUUID, name string) string {
	subnets, err := client.Subnets.List(ctx, converged.WithFilter(fmt.Sprintf("name eq '%s'", name)))
	check("list subnets by name", err)
	decoded("subnets by name", subnets)
	var found []string
	for _, s := range subnets {
		if s.Name == nil || s.SubnetType == nil || *s.Name != name {
			continue
		}
		if s.SubnetType.GetName() == "OVERLAY" || (s.ClusterReference != nil && *s.ClusterReference == peUUID) || slices.Contains(s.ClusterReferenceList, peUUID) {
			found = append(found, *s.ExtId)
		}
	}
	if len(found) != 1 {
		fail("subnet %s: %d match on cluster %s (CAPX needs exactly one)", name, len(found), peUUID)
	}
	call("resolve the subnet %s: %s", name, found[0])
	return found[0]
}

// getCategory is helpers.go:799-808.
func getCategory(ctx context.Context, client *v4Converged.Client, key, value string) *prismModels.Category {
	categories, err := client.Categories.List(ctx, converged.WithFilter(fmt.Sprintf("key eq '%s' and value eq '%s'", key, value)))
	check(fmt.Sprintf("list category %s=%s", key, value), err)
	decoded("categories", categories)
	if len(categories) == 0 {
		return nil
	}
	return &categories[0]
}

// getOrCreateCategories is helpers.go:766-780 with getOrCreateCategory (helpers.go:866-897). CAPX ignores its error
// on the machine path (nutanixmachine_controller.go:1848-1854); this program fails on it.
func getOrCreateCategories(ctx context.Context, client *v4Converged.Client, identifiers [][2]string) {
	for _, ci := range identifiers {
		if found := getCategory(ctx, client, ci[0], ci[1]); found != nil {
			call("get-or-create category %s=%s: found %s", ci[0], ci[1], *found.ExtId)
			continue
		}
		created, err := client.Categories.Create(ctx, &prismModels.Category{Key: ptr(ci[0]), Description: ptr(defaultCAPICategoryDescription), Value: ptr(ci[1])})
		check(fmt.Sprintf("create category %s=%s", ci[0], ci[1]), err)
		decoded("created category", created)
		if created.ExtId == nil {
			fail("the created category %s=%s has no extId", ci[0], ci[1])
		}
		call("get-or-create category %s=%s: created %s", ci[0], ci[1], *created.ExtId)
	}
}

// categoryReferences is helpers.go:900-937 GetPrismReferencesOfCategoryIdentifiers.
func categoryReferences(ctx context.Context, client *v4Converged.Client, identifiers [][2]string) []vmmconfig.CategoryReference {
	var extIds []string
	for _, ci := range identifiers {
		category := getCategory(ctx, client, ci[0], ci[1])
		if category == nil || category.ExtId == nil {
			fail("category value %s not found in category %s (terminal for CAPX)", ci[1], ci[0])
		}
		if !slices.Contains(extIds, *category.ExtId) {
			extIds = append(extIds, *category.ExtId)
		}
	}
	references := make([]vmmconfig.CategoryReference, 0, len(extIds))
	for _, extId := range extIds {
		ref := vmmconfig.NewCategoryReference()
		ref.ExtId = ptr(extId)
		references = append(references, *ref)
	}
	call("category references %v", extIds)
	return references
}

// getGPU is helpers.go:1015-1080 GetGPU/GetGPUsForPE for a GPU given by name only: physical profiles filtered by
// deviceName, then virtual ones (name wins there too), those in use skipped, one chosen at random.
func getGPU(ctx context.Context, client *v4Converged.Client, peUUID, name string) *vmmconfig.Gpu {
	var gpus []*vmmconfig.Gpu
	physical, err := client.Clusters.ListClusterPhysicalGPUs(ctx, peUUID, converged.WithFilter(fmt.Sprintf("physicalGpuConfig/deviceName eq '%s'", name)))
	check("list physical GPU profiles", err)
	decoded("physical GPU profiles", physical)
	for _, p := range physical {
		if p.PhysicalGpuConfig.IsInUse != nil && *p.PhysicalGpuConfig.IsInUse {
			continue
		}
		gpu := vmmconfig.NewGpu()
		gpu.Name = p.PhysicalGpuConfig.DeviceName
		gpu.DeviceId = ptr(int(*p.PhysicalGpuConfig.DeviceId))
		gpu.Mode = vmmconfig.GPUMODE_PASSTHROUGH_COMPUTE.Ref()
		if p.PhysicalGpuConfig.Type != nil && *p.PhysicalGpuConfig.Type == clusterModels.GPUTYPE_PASSTHROUGH_GRAPHICS {
			gpu.Mode = vmmconfig.GPUMODE_PASSTHROUGH_GRAPHICS.Ref()
		}
		gpu.Vendor = gpuVendor(*p.PhysicalGpuConfig.VendorName)
		gpus = append(gpus, gpu)
	}
	virtual, err := client.Clusters.ListClusterVirtualGPUs(ctx, peUUID, converged.WithFilter(fmt.Sprintf("virtualGpuConfig/deviceName eq '%s'", name)))
	check("list virtual GPU profiles", err)
	decoded("virtual GPU profiles", virtual)
	for _, v := range virtual {
		if v.VirtualGpuConfig.IsInUse != nil && *v.VirtualGpuConfig.IsInUse {
			continue
		}
		gpu := vmmconfig.NewGpu()
		gpu.Name = v.VirtualGpuConfig.DeviceName
		gpu.DeviceId = ptr(int(*v.VirtualGpuConfig.DeviceId))
		gpu.Mode = vmmconfig.GPUMODE_VIRTUAL.Ref()
		gpu.Vendor = gpuVendor(*v.VirtualGpuConfig.VendorName)
		gpus = append(gpus, gpu)
	}
	if len(gpus) == 0 {
		fail("no available GPUs found in Prism Element cluster with UUID %s (terminal for CAPX)", peUUID)
	}
	chosen := gpus[rand.Intn(len(gpus))]
	if chosen.Vendor.GetName() == "UNKNOWN" {
		fail("GPU %s: the profile's vendorName is none of kNvidia, kIntel, kAmd", name)
	}
	call("GPU %s: device %d, %s, %s", name, *chosen.DeviceId, chosen.Mode.GetName(), chosen.Vendor.GetName())
	return chosen
}

// gpuVendor is helpers.go:1082-1093 gpuVendorStringToGpuVendor.
func gpuVendor(vendor string) *vmmconfig.GpuVendor {
	switch vendor {
	case "kNvidia":
		return vmmconfig.GPUVENDOR_NVIDIA.Ref()
	case "kIntel":
		return vmmconfig.GPUVENDOR_INTEL.Ref()
	case "kAmd":
		return vmmconfig.GPUVENDOR_AMD.Ref()
	default:
		return vmmconfig.GPUVENDOR_UNKNOWN.Ref()
	}
}

// getImageByName is helpers.go:597-630 GetImage (by name): EqualFold, exactly one.
func getImageByName(ctx context.Context, client *v4Converged.Client, name string) *imageModels.Image {
	images, err := client.Images.List(ctx, converged.WithFilter(fmt.Sprintf("name eq '%s'", name)))
	check("list images by name", err)
	decoded("images by name", images)
	var found []*imageModels.Image
	for i := range images {
		if strings.EqualFold(*images[i].Name, name) {
			found = append(found, &images[i])
		}
	}
	if len(found) != 1 {
		fail("image %s: %d found (CAPX needs exactly one)", name, len(found))
	}
	call("resolve the image %s: %s", name, *found[0].ExtId)
	return found[0]
}

// imageMarkedForDeletion is helpers.go:695-705.
func imageMarkedForDeletion(ctx context.Context, client *v4Converged.Client, image *imageModels.Image) bool {
	filter := "entitiesAffected/any(a:a/extId eq '%s') " +
		"and (status eq Prism.Config.TaskStatus'RUNNING' or status eq Prism.Config.TaskStatus'QUEUED') " +
		"and (operation eq 'kImageDelete')"
	tasks, err := client.Tasks.List(ctx, converged.WithFilter(fmt.Sprintf(filter, *image.ExtId)))
	check("list image delete tasks", err)
	decoded("image delete tasks", tasks)
	call("image-deletion guard: %d tasks", len(tasks))
	return len(tasks) > 0
}

// systemDisk is helpers.go:329-344 CreateSystemDiskSpec with newVmDiskWithImageRef (helpers.go:470-491): no diskAddress.
func systemDisk(imageUUID string, sizeBytes int64) *vmmconfig.Disk {
	vmDisk := vmmconfig.NewVmDisk()
	vmDisk.DiskSizeBytes = ptr(sizeBytes)
	vmDisk.DataSource = vmmconfig.NewDataSource()
	imageRef := vmmconfig.NewImageReference()
	imageRef.ImageExtId = &imageUUID
	check("image reference", vmDisk.DataSource.SetReference(*imageRef))
	vmDisk.DataSource.ReferenceItemDiscriminator_ = nil
	disk := vmmconfig.NewDisk()
	check("disk backing", disk.SetBackingInfo(*vmDisk))
	return disk
}

// addGuestCustomization is nutanixmachine_controller.go:1554-1598 for a bootstrapRef of kind Secret.
func addGuestCustomization(vm *vmmconfig.Vm, m machine) {
	bootstrapData := bytes.TrimPrefix(m.bootstrapData, []byte("## template: jinja\n"))
	bootstrapData = bytes.ReplaceAll(bootstrapData, []byte("{{ ds.meta_data.hostname }}"), []byte(m.name))
	metadata := fmt.Sprintf("{\"hostname\": \"%s\", \"uuid\": \"%s\"}", m.name, uuid.New())
	cloudInit := vmmconfig.NewCloudInit()
	cloudInit.Metadata = ptr(base64.StdEncoding.EncodeToString([]byte(metadata)))
	cloudInit.DatasourceType = vmmconfig.CLOUDINITDATASOURCETYPE_CONFIG_DRIVE_V2.Ref()
	userData := vmmconfig.NewUserdata()
	userData.Value = ptr(base64.StdEncoding.EncodeToString(bootstrapData))
	check("cloud-init script", cloudInit.SetCloudInitScript(*userData))
	cloudInit.CloudInitScriptItemDiscriminator_ = nil
	vm.GuestCustomization = vmmconfig.NewGuestCustomizationParams()
	check("guest customization", vm.GuestCustomization.SetConfig(*cloudInit))
}

// addressesOfNic is nutanixmachine_controller.go:1769-1824 getAddressesFromNic with getIpsFromIpv4Info.
func addressesOfNic(nic vmmconfig.Nic) []string {
	var ipv4Config *vmmconfig.Ipv4Config
	var ipv4Info *vmmconfig.Ipv4Info
	if nicInfo := nic.GetNicNetworkInfo(); nicInfo != nil {
		switch info := nicInfo.(type) {
		case vmmconfig.VirtualEthernetNicNetworkInfo:
			ipv4Config, ipv4Info = info.Ipv4Config, info.Ipv4Info
		case vmmconfig.DpOffloadNicNetworkInfo:
			ipv4Config, ipv4Info = info.Ipv4Config, info.Ipv4Info
		case vmmconfig.SriovNicNetworkInfo:
			if nic.NetworkInfo != nil {
				ipv4Config, ipv4Info = nic.NetworkInfo.Ipv4Config, nic.NetworkInfo.Ipv4Info
			}
		}
	} else if nic.NetworkInfo != nil {
		ipv4Config, ipv4Info = nic.NetworkInfo.Ipv4Config, nic.NetworkInfo.Ipv4Info
	}
	if ipv4Config != nil && ipv4Config.IpAddress != nil && ipv4Config.IpAddress.Value != nil {
		return []string{*ipv4Config.IpAddress.Value}
	}
	var addresses []string
	if ipv4Info != nil {
		for _, ip := range ipv4Info.LearnedIpAddresses {
			if ip.Value != nil {
				addresses = append(addresses, *ip.Value)
			}
		}
	}
	return addresses
}

// vmHasTaskInProgress is helpers.go:707-742.
func vmHasTaskInProgress(ctx context.Context, client *v4Converged.Client, vmUUID string) bool {
	filter := "entitiesAffected/any(a:a/extId eq '%s') " +
		"and (status eq Prism.Config.TaskStatus'RUNNING' or status eq Prism.Config.TaskStatus'QUEUED')"
	tasks, err := client.Tasks.List(ctx, converged.WithFilter(fmt.Sprintf(filter, vmUUID)))
	check("list the VM's tasks", err)
	decoded("the VM's tasks", tasks)
	for _, task := range tasks {
		if task.Status != nil && task.ExtId != nil && (*task.Status == prismModels.TASKSTATUS_RUNNING || *task.Status == prismModels.TASKSTATUS_QUEUED) {
			return true
		}
	}
	return false
}

// deleteMachine is reconcileDelete (nutanixmachine_controller.go:320-446), reconciled until the VM is gone. CAPX
// requeues after 5 s (:395, :445); the program requeues sooner, which changes no call.
func deleteMachine(ctx context.Context, client *v4Converged.Client, m machine, vmUUID string) {
	deletes := 0
	for reconcile := 1; reconcile <= 200; reconcile++ {
		vm := findVMByUUID(ctx, client, vmUUID) // :348
		if vm == nil {
			call("delete reconcile %d: GET vms/%s is 404: the finalizer is removed", reconcile, vmUUID)
			return
		}
		if *vm.Name != m.name { // :375-377
			fail("found VM with UUID %s but name %s did not match Machine name %s", vmUUID, *vm.Name, m.name)
		}
		if vmHasTaskInProgress(ctx, client, vmUUID) { // :381-396
			call("delete reconcile %d: the VM has a task in progress: requeue", reconcile)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if deletes > 0 {
			// The VM was there and no task is RUNNING or QUEUED for it: CAPX deletes it again (§4 step 6). That is
			// right only when the delete task ended between the GET and the task list (then the VM is gone, and the
			// second delete's GET for the ETag is a 404: an error CAPX retries, and the next reconcile sees the 404).
			// A second DELETE actually sent means the simulator showed a VM being deleted with no task for it.
			_, err := client.VMs.DeleteAsync(ctx, vmUUID)
			if !converged.IsNotFound(err) {
				check("second delete", err)
				fail("delete reconcile %d: VM %s still existed with no task in progress after its delete, and CAPX deleted it again", reconcile, vmUUID)
			}
			call("delete reconcile %d: the delete task ended between the GET and the task list: CAPX deletes again, its GET for the ETag is 404, an error it retries", reconcile)
			continue
		}
		for _, disk := range vm.Disks { // :398-427: no volume group on this VM, so no detach.
			if _, ok := disk.GetBackingInfo().(vmmconfig.ADSFVolumeGroupReference); ok {
				fail("the VM has a volume-group disk, which this sequence does not cover")
			}
		}
		// :430 DeleteVM (helpers.go:129-150) → PGC vms.go:217-248: GET (ETag), DELETE with If-Match; not waited for.
		op, err := client.VMs.DeleteAsync(ctx, vmUUID)
		check("delete VM", err)
		if op == nil || op.UUID() == "" {
			fail("no task received for vm %s", m.name)
		}
		deletes++
		call("delete reconcile %d: task check, GET for the ETag, DELETE with If-Match: task %s, requeue", reconcile, op.UUID())
	}
	fail("VM %s was not gone after 200 delete reconciles", vmUUID)
}

// deleteCategories is helpers.go:810-864: list, then Categories.Delete (PGC categories.go:127-147: GET for the
// data.$reserved ETag, DELETE with If-Match). CAPX logs and swallows a delete error (:837-844); the program fails on it.
func deleteCategories(ctx context.Context, client *v4Converged.Client, groups ...[][2]string) {
	for _, identifiers := range groups {
		for _, ci := range identifiers {
			category := getCategory(ctx, client, ci[0], ci[1])
			if category == nil {
				call("delete category %s=%s: not found, already deleted", ci[0], ci[1])
				continue
			}
			check(fmt.Sprintf("delete category %s=%s", ci[0], ci[1]), client.Categories.Delete(ctx, *category.ExtId))
			call("delete category %s=%s: GET for the ETag, DELETE %s with If-Match", ci[0], ci[1], *category.ExtId)
		}
	}
}
