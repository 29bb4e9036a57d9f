// Drives the prism-simulator's v4 API with Nutanix's official v4.2 Go SDKs (vmm-go-client/v4 and
// prism-go-client/v4), the way a Go operator would: create a VM with an NTNX-Request-Id (and repeat it),
// poll the task, list with $filter, get with its ETag, update with If-Match (and see a stale ETag refused), add and
// remove a custom attribute,
// add and grow a disk, add, move and remove a NIC, power-cycle, delete, and see the VM gone; list categories
// with $filter, read a VM's categories through them, create a category and delete it; then resolve clusters, storage
// containers, subnets and images as CAPX does (inventory.go).
//
// Nothing it cannot decode passes: the SDK ignores json.Unmarshal errors and keeps unknown fields and enum
// values aside, so every answer is checked for the Go type the SDK should have chosen, for fields the SDK
// does not know ($unknownFields), for enum values it does not know ($UNKNOWN), and is decoded a second time
// from the raw bytes with the error checked.
//
// Configuration (environment): SIM_HOST, SIM_PORT, SIM_USERNAME, SIM_PASSWORD, SIM_CLUSTER, SIM_IMAGE,
// SIM_SUBNET, SIM_OTHER_SUBNET, SIM_V3_VM, and for inventory.go SIM_CLUSTER_NAME, SIM_PRISM_CENTRAL, SIM_SUBNET_NAME,
// SIM_OVERLAY_SUBNET; SSL_CERT_FILE names the simulator's CA, so TLS is verified as with a real Prism Central.
package main

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	prismapi "github.com/nutanix/ntnx-api-golang-clients/prism-go-client/v4/api"
	prismclient "github.com/nutanix/ntnx-api-golang-clients/prism-go-client/v4/client"
	prismconfig "github.com/nutanix/ntnx-api-golang-clients/prism-go-client/v4/models/prism/v4/config"
	vmmapi "github.com/nutanix/ntnx-api-golang-clients/vmm-go-client/v4/api"
	vmmclient "github.com/nutanix/ntnx-api-golang-clients/vmm-go-client/v4/client"
	vmmconfig "github.com/nutanix/ntnx-api-golang-clients/vmm-go-client/v4/models/vmm/v4/ahv/config"
	vmmerror "github.com/nutanix/ntnx-api-golang-clients/vmm-go-client/v4/models/vmm/v4/error"
	sdkdecoding "prism-simulator.test/sdk-decoding"
)

type env struct {
	host, username, password, cluster, image, subnet string
	port                                             int
}

func mustEnv(name string) string {
	value := os.Getenv(name)
	if value == "" {
		fail("environment variable %s is not set", name)
	}
	return value
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "FAIL: "+format+"\n", args...)
	os.Exit(1)
}

func step(format string, args ...interface{}) {
	fmt.Printf("step: "+format+"\n", args...)
}

func ptr[T any](v T) *T { return &v }

func checkDecoded(what string, value interface{}) {
	if err := sdkdecoding.Check(what, value); err != nil {
		fail("%v", err)
	}
}

// strict fetches path with plain net/http (same credentials, same verified TLS) and decodes it into target
// with json.Unmarshal's error checked, which the SDK itself does not do.
func strict(e env, path string, target interface{}) {
	request, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("https://%s:%d%s", e.host, e.port, path), nil)
	request.SetBasicAuth(e.username, e.password)
	request.Header.Set("Accept", "application/json")
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{}}}
	response, err := client.Do(request)
	if err != nil {
		fail("GET %s: %v", path, err)
	}
	defer response.Body.Close()
	body, _ := io.ReadAll(response.Body)
	if response.StatusCode != http.StatusOK {
		fail("GET %s: %s: %s", path, response.Status, body)
	}
	if err := json.Unmarshal(body, target); err != nil {
		fail("GET %s: the SDK model does not decode the answer: %v\n%s", path, err, body)
	}
	checkDecoded("GET "+path, target)
}

// apiError is the v4 error in a failed SDK call's body.
func apiError(err error) (status string, message vmmerror.AppMessage) {
	var generic vmmclient.GenericOpenAPIError
	if !errors.As(err, &generic) {
		fail("expected an API error, got %v", err)
	}
	decoded := vmmconfig.NewGetVmApiResponse()
	if e := json.Unmarshal(generic.Body, decoded); e != nil {
		fail("the error body does not decode: %v\n%s", e, generic.Body)
	}
	checkDecoded("error body", decoded)
	errorResponse, ok := decoded.GetData().(vmmerror.ErrorResponse)
	if !ok {
		fail("the error body's data is %T, not vmm.v4.error.ErrorResponse: %s", decoded.GetData(), generic.Body)
	}
	messages, ok := errorResponse.GetError().([]vmmerror.AppMessage)
	if !ok || len(messages) == 0 {
		fail("the error body has no AppMessage list: %s", generic.Body)
	}
	return generic.Status, messages[0]
}

func waitForTask(tasks *prismapi.TasksApi, extId string) prismconfig.Task {
	for poll := 0; poll < 600; poll++ {
		response, err := tasks.GetTaskById(&extId, nil)
		if err != nil {
			fail("GetTaskById %s: %v", extId, err)
		}
		checkDecoded("task", response)
		task, ok := response.GetData().(prismconfig.Task)
		if !ok {
			fail("GetTaskById %s: data is %T, not prism.v4.config.Task", extId, response.GetData())
		}
		if task.Status == nil || task.ExtId == nil || *task.ExtId != extId {
			fail("GetTaskById %s: incomplete task %+v", extId, task)
		}
		switch *task.Status {
		case prismconfig.TASKSTATUS_QUEUED, prismconfig.TASKSTATUS_RUNNING:
			time.Sleep(20 * time.Millisecond)
			continue
		case prismconfig.TASKSTATUS_SUCCEEDED:
			return task
		default:
			detail := ""
			if task.LegacyErrorMessage != nil {
				detail = *task.LegacyErrorMessage
			}
			fail("task %s ended %s: %s", extId, task.Status.GetName(), detail)
		}
	}
	fail("task %s did not finish", extId)
	return prismconfig.Task{}
}

func taskOf(what string, data interface{}) string {
	reference, ok := data.(prismconfig.TaskReference)
	if ok && reference.ExtId != nil {
		return *reference.ExtId
	}
	// The vmm SDK has its own copy of the prism TaskReference model.
	if raw, err := json.Marshal(data); err == nil {
		var generic struct {
			ObjectType string `json:"$objectType"`
			ExtId      string `json:"extId"`
		}
		if json.Unmarshal(raw, &generic) == nil && generic.ObjectType == "prism.v4.config.TaskReference" && generic.ExtId != "" {
			return generic.ExtId
		}
	}
	fail("%s: data is %T, not a TaskReference", what, data)
	return ""
}

func getVm(vms *vmmapi.VmApi, extId string) (vmmconfig.Vm, string) {
	response, err := vms.GetVmById(&extId)
	if err != nil {
		fail("GetVmById %s: %v", extId, err)
	}
	checkDecoded("GetVmById", response)
	vm, ok := response.GetData().(vmmconfig.Vm)
	if !ok {
		fail("GetVmById: data is %T, not vmm.v4.ahv.config.Vm", response.GetData())
	}
	etag := vms.ApiClient.GetEtag(response)
	if etag == "" {
		fail("GetVmById: no ETag in the answer")
	}
	return vm, etag
}

func main() {
	port, err := strconv.Atoi(mustEnv("SIM_PORT"))
	if err != nil {
		fail("SIM_PORT: %v", err)
	}
	e := env{host: mustEnv("SIM_HOST"), port: port, username: mustEnv("SIM_USERNAME"), password: mustEnv("SIM_PASSWORD"), cluster: mustEnv("SIM_CLUSTER"), image: mustEnv("SIM_IMAGE"), subnet: mustEnv("SIM_SUBNET")}

	vmmClient := vmmclient.NewApiClient()
	vmmClient.Host, vmmClient.Port, vmmClient.Username, vmmClient.Password = e.host, e.port, e.username, e.password
	vmmClient.VerifySSL = true
	vmmClient.RetryInterval = 200 * time.Millisecond
	vmmClient.LoggerFile = os.Getenv("SDK_LOG_FILE")
	prismClient := prismclient.NewApiClient()
	prismClient.Host, prismClient.Port, prismClient.Username, prismClient.Password = e.host, e.port, e.username, e.password
	prismClient.VerifySSL = true
	prismClient.RetryInterval = 200 * time.Millisecond
	prismClient.LoggerFile = os.Getenv("SDK_LOG_FILE")
	vms := vmmapi.NewVmApi(vmmClient)
	tasks := prismapi.NewTasksApi(prismClient)

	name := fmt.Sprintf("sdk-v4-%d", time.Now().UnixNano())

	// Create, with the request id chosen by the caller so that the repeat below can reuse it.
	vm := vmmconfig.NewVm()
	vm.Name = ptr(name)
	vm.Description = ptr("created by the official v4 SDK")
	vm.NumSockets = ptr(1)
	vm.NumCoresPerSocket = ptr(2)
	vm.NumThreadsPerCore = ptr(1)
	vm.MemorySizeBytes = ptr(int64(2 * 1024 * 1024 * 1024))
	vm.Cluster = vmmconfig.NewClusterReference()
	vm.Cluster.ExtId = ptr(e.cluster)
	imageReference := vmmconfig.NewImageReference()
	imageReference.ImageExtId = ptr(e.image)
	dataSource := vmmconfig.NewDataSource()
	if err := dataSource.SetReference(*imageReference); err != nil {
		fail("SetReference: %v", err)
	}
	vmDisk := vmmconfig.NewVmDisk()
	vmDisk.DiskSizeBytes = ptr(int64(20 * 1024 * 1024 * 1024))
	vmDisk.DataSource = dataSource
	disk := vmmconfig.NewDisk()
	disk.DiskAddress = vmmconfig.NewDiskAddress()
	disk.DiskAddress.BusType = vmmconfig.DISKBUSTYPE_SCSI.Ref()
	disk.DiskAddress.Index = ptr(0)
	if err := disk.SetBackingInfo(*vmDisk); err != nil {
		fail("SetBackingInfo: %v", err)
	}
	vm.Disks = []vmmconfig.Disk{*disk}
	network := vmmconfig.NewVirtualEthernetNicNetworkInfo()
	network.Subnet = vmmconfig.NewSubnetReference()
	network.Subnet.ExtId = ptr(e.subnet)
	nic := vmmconfig.NewNic()
	if err := nic.SetNicNetworkInfo(*network); err != nil {
		fail("SetNicNetworkInfo: %v", err)
	}
	vm.Nics = []vmmconfig.Nic{*nic}

	requestId := fmt.Sprintf("%08x-0000-4000-8000-%012x", time.Now().Unix(), time.Now().UnixNano()&0xffffffffffff)
	args := map[string]interface{}{"NTNX-Request-Id": ptr(requestId)}
	created, err := vms.CreateVm(vm, args)
	if err != nil {
		fail("CreateVm: %v", err)
	}
	checkDecoded("CreateVm", created)
	createTask := taskOf("CreateVm", created.GetData())
	step("CreateVm accepted, task %s", createTask)

	again, err := vms.CreateVm(vm, args)
	if err != nil {
		fail("CreateVm repeated with the same NTNX-Request-Id: %v", err)
	}
	if repeated := taskOf("CreateVm (repeated)", again.GetData()); repeated != createTask {
		fail("CreateVm repeated with the same NTNX-Request-Id gave task %s, not %s", repeated, createTask)
	}
	step("CreateVm repeated with the same NTNX-Request-Id: the same task")

	task := waitForTask(tasks, createTask)
	extId := ""
	for _, entity := range task.EntitiesAffected {
		if entity.Rel != nil && *entity.Rel == "vmm:ahv:config:vm" && entity.ExtId != nil {
			extId = *entity.ExtId
		}
	}
	if extId == "" {
		fail("the create task names no vmm:ahv:config:vm entity: %+v", task.EntitiesAffected)
	}
	strict(e, "/api/prism/v4.2/config/tasks/"+url.PathEscape(createTask), prismconfig.NewGetTaskApiResponse())
	step("create task SUCCEEDED, VM %s", extId)

	// List with $filter: exactly the one VM.
	filter := fmt.Sprintf("name eq '%s'", name)
	listed, err := vms.ListVms(ptr(0), ptr(50), &filter, nil, nil)
	if err != nil {
		fail("ListVms: %v", err)
	}
	checkDecoded("ListVms", listed)
	items, ok := listed.GetData().([]vmmconfig.Vm)
	if !ok || len(items) != 1 || items[0].ExtId == nil || *items[0].ExtId != extId {
		fail("ListVms $filter=%s: expected exactly VM %s, got %T %+v", filter, extId, listed.GetData(), listed.GetData())
	}
	if listed.Metadata == nil || listed.Metadata.TotalAvailableResults == nil || *listed.Metadata.TotalAvailableResults != 1 {
		fail("ListVms: metadata.totalAvailableResults is not 1: %+v", listed.Metadata)
	}
	strict(e, "/api/vmm/v4.2/ahv/config/vms?%24filter="+url.QueryEscape(filter), vmmconfig.NewListVmsApiResponse())
	step("ListVms $filter=%q: the VM", filter)

	// Get: the VM as created, with an ETag.
	current, etag := getVm(vms, extId)
	if current.Name == nil || *current.Name != name || current.NumCoresPerSocket == nil || *current.NumCoresPerSocket != 2 || current.MemorySizeBytes == nil || *current.MemorySizeBytes != 2*1024*1024*1024 {
		fail("GetVmById: the VM is not what was created: %+v", current)
	}
	if len(current.Disks) != 1 || len(current.Nics) != 1 || current.PowerState == nil {
		fail("GetVmById: expected one disk, one NIC and a power state: %+v", current)
	}
	if _, ok := current.Disks[0].GetBackingInfo().(vmmconfig.VmDisk); !ok {
		fail("GetVmById: the disk's backingInfo is %T, not VmDisk", current.Disks[0].GetBackingInfo())
	}
	if _, ok := current.Nics[0].GetNicNetworkInfo().(vmmconfig.VirtualEthernetNicNetworkInfo); !ok {
		fail("GetVmById: the NIC's nicNetworkInfo is %T, not VirtualEthernetNicNetworkInfo", current.Nics[0].GetNicNetworkInfo())
	}
	strict(e, "/api/vmm/v4.2/ahv/config/vms/"+extId, vmmconfig.NewGetVmApiResponse())
	step("GetVmById: %s, %s, ETag %s", *current.Name, current.PowerState.GetName(), etag)

	// Update with If-Match: the SDK sends the ETag it put in the VM's $reserved; pass it explicitly too.
	current.NumSockets = ptr(2)
	updated, err := vms.UpdateVmById(&extId, &current, map[string]interface{}{"If-Match": ptr(etag)})
	if err != nil {
		fail("UpdateVmById: %v", err)
	}
	checkDecoded("UpdateVmById", updated)
	waitForTask(tasks, taskOf("UpdateVmById", updated.GetData()))
	afterUpdate, newEtag := getVm(vms, extId)
	if afterUpdate.NumSockets == nil || *afterUpdate.NumSockets != 2 || newEtag == etag {
		fail("after UpdateVmById: numSockets %v, ETag %s (was %s)", afterUpdate.NumSockets, newEtag, etag)
	}
	step("UpdateVmById with If-Match: numSockets 2, new ETag %s", newEtag)

	// The VM as read before the update carries a stale ETag now (the SDK sends the one in the body's $reserved,
	// whatever the If-Match argument says): 412, with a v4 error body.
	current.NumSockets = ptr(3)
	_, err = vms.UpdateVmById(&extId, &current, map[string]interface{}{"If-Match": ptr(etag)})
	if err == nil {
		fail("UpdateVmById with a stale ETag succeeded")
	}
	status, message := apiError(err)
	if !strings.HasPrefix(status, "412") {
		fail("UpdateVmById with a stale ETag: %s, not 412", status)
	}
	step("UpdateVmById with a stale ETag: %s, %s %s", status, *message.Code, *message.ErrorGroup)

	// As CAPX after a create: the custom attribute providerid:<extId>, added with the VM's ETag, then removed.
	attributes := vmmconfig.NewUpdateCustomAttributesParams()
	attributes.CustomAttributes = []string{"providerid:" + extId}
	added, err := vms.AddVmCustomAttributes(&extId, attributes, map[string]interface{}{"If-Match": ptr(newEtag)})
	if err != nil {
		fail("AddVmCustomAttributes: %v", err)
	}
	checkDecoded("AddVmCustomAttributes", added)
	waitForTask(tasks, taskOf("AddVmCustomAttributes", added.GetData()))
	withAttributes, attributesEtag := getVm(vms, extId)
	if len(withAttributes.CustomAttributes) != 1 || withAttributes.CustomAttributes[0] != "providerid:"+extId {
		fail("after AddVmCustomAttributes: customAttributes %v", withAttributes.CustomAttributes)
	}
	removed, err := vms.RemoveVmCustomAttributes(&extId, attributes, map[string]interface{}{"If-Match": ptr(attributesEtag)})
	if err != nil {
		fail("RemoveVmCustomAttributes: %v", err)
	}
	checkDecoded("RemoveVmCustomAttributes", removed)
	waitForTask(tasks, taskOf("RemoveVmCustomAttributes", removed.GetData()))
	if without, _ := getVm(vms, extId); len(without.CustomAttributes) != 0 {
		fail("after RemoveVmCustomAttributes: customAttributes %v", without.CustomAttributes)
	}
	step("AddVmCustomAttributes and RemoveVmCustomAttributes with If-Match: providerid:<extId> added, then removed")

	// As CAPX before a delete: the VM's tasks in progress, by $filter on entitiesAffected and status; then all of them.
	inProgressFilter := fmt.Sprintf("entitiesAffected/any(a:a/extId eq '%s') and (status eq Prism.Config.TaskStatus'RUNNING' or status eq Prism.Config.TaskStatus'QUEUED')", extId)
	inProgress, err := tasks.ListTasks(nil, nil, &inProgressFilter, nil, nil)
	if err != nil {
		fail("ListTasks $filter=%s: %v", inProgressFilter, err)
	}
	checkDecoded("ListTasks", inProgress)
	if inProgress.GetData() != nil {
		fail("ListTasks $filter=%s: %+v, expected none", inProgressFilter, inProgress.GetData())
	}
	affecting := fmt.Sprintf("entitiesAffected/any(a:a/extId eq '%s')", extId)
	taskList, err := tasks.ListTasks(nil, ptr(100), &affecting, nil, nil)
	if err != nil {
		fail("ListTasks $filter=%s: %v", affecting, err)
	}
	checkDecoded("ListTasks", taskList)
	vmTasks, ok := taskList.GetData().([]prismconfig.Task)
	if !ok || len(vmTasks) < 4 {
		fail("ListTasks $filter=%s: data is %T %+v", affecting, taskList.GetData(), taskList.GetData())
	}
	step("ListTasks with entitiesAffected/any(...): none in progress, %d in all", len(vmTasks))

	changeDevices(vms, tasks, e, extId)

	// Power-cycle (needs the current ETag, like every action).
	_, etag = getVm(vms, extId)
	cycled, err := vms.PowerCycleVm(&extId, map[string]interface{}{"If-Match": ptr(etag)})
	if err != nil {
		fail("PowerCycleVm: %v", err)
	}
	checkDecoded("PowerCycleVm", cycled)
	waitForTask(tasks, taskOf("PowerCycleVm", cycled.GetData()))
	running, etag := getVm(vms, extId)
	if running.PowerState == nil || *running.PowerState != vmmconfig.POWERSTATE_ON {
		fail("after PowerCycleVm: power state %v", running.PowerState)
	}
	step("PowerCycleVm: %s", running.PowerState.GetName())

	// Delete, then the VM is gone: 404 VM_NOT_FOUND.
	deleted, err := vms.DeleteVmById(&extId, map[string]interface{}{"If-Match": ptr(etag)})
	if err != nil {
		fail("DeleteVmById: %v", err)
	}
	checkDecoded("DeleteVmById", deleted)
	waitForTask(tasks, taskOf("DeleteVmById", deleted.GetData()))
	_, err = vms.GetVmById(&extId)
	if err == nil {
		fail("GetVmById after the delete succeeded")
	}
	status, message = apiError(err)
	if !strings.HasPrefix(status, "404") || message.ErrorGroup == nil || *message.ErrorGroup != "VM_NOT_FOUND" {
		fail("GetVmById after the delete: %s %+v, not 404 VM_NOT_FOUND", status, message)
	}
	step("DeleteVmById: then GetVmById answers %s %s", status, *message.ErrorGroup)

	// A VM made over v3 with what the create above lacks — a CD-ROM, UEFI boot, a category, a NIC on a DHCP subnet
	// with the address the guest learned, power ON — read and listed through the SDK.
	if v3Vm := os.Getenv("SIM_V3_VM"); v3Vm != "" {
		vm, _ := getVm(vms, v3Vm)
		if _, ok := vm.GetBootConfig().(vmmconfig.UefiBoot); !ok {
			fail("v3 VM: bootConfig is %T, not UefiBoot", vm.GetBootConfig())
		}
		if len(vm.CdRoms) != 1 || len(vm.Disks) != 1 || len(vm.Categories) != 1 || vm.PowerState == nil || *vm.PowerState != vmmconfig.POWERSTATE_ON {
			fail("v3 VM: expected one CD-ROM, one disk, one category, power ON: %+v", vm)
		}
		learned := 0
		for _, nic := range vm.Nics {
			if network, ok := nic.GetNicNetworkInfo().(vmmconfig.VirtualEthernetNicNetworkInfo); ok && network.Ipv4Info != nil {
				learned += len(network.Ipv4Info.LearnedIpAddresses)
			}
		}
		if len(vm.Nics) != 2 || learned != 1 {
			fail("v3 VM: expected two NICs, one with a learned address: %+v", vm.Nics)
		}
		strict(e, "/api/vmm/v4.2/ahv/config/vms/"+v3Vm, vmmconfig.NewGetVmApiResponse())
		all, err := vms.ListVms(ptr(0), ptr(100), nil, nil, nil)
		if err != nil {
			fail("ListVms: %v", err)
		}
		checkDecoded("ListVms (all)", all)
		if listed, ok := all.GetData().([]vmmconfig.Vm); !ok || len(listed) == 0 {
			fail("ListVms (all): data is %T", all.GetData())
		}
		strict(e, "/api/vmm/v4.2/ahv/config/vms?%24limit=100", vmmconfig.NewListVmsApiResponse())
		step("GetVmById of a VM made over v3: UEFI, a CD-ROM, a category, a learned address, %s", vm.PowerState.GetName())
		readCategories(prismapi.NewCategoriesApi(prismClient), e, vm)
	}
	createAndDeleteCategory(prismapi.NewCategoriesApi(prismClient))
	readInventory(e, vmmClient)
	fmt.Println("OK")
}

// finished fails on err, checks that the answer decoded in full, and waits for the task it names.
func finished(tasks *prismapi.TasksApi, what string, response interface{ GetData() interface{} }, err error) {
	if err != nil {
		fail("%s: %v", what, err)
	}
	checkDecoded(what, response)
	waitForTask(tasks, taskOf(what, response.GetData()))
}

// changeDevices adds a disk and grows it, adds a NIC, moves it to another subnet and removes it, each with the
// VM's current ETag in If-Match (the disk or NIC read carries none of its own), as Terraform's v4 VM resource does.
func changeDevices(vms *vmmapi.VmApi, tasks *prismapi.TasksApi, e env, extId string) {
	withEtag := func() map[string]interface{} {
		_, etag := getVm(vms, extId)
		return map[string]interface{}{"If-Match": ptr(etag)}
	}

	vmDisk := vmmconfig.NewVmDisk()
	vmDisk.DiskSizeBytes = ptr(int64(1024 * 1024 * 1024))
	disk := vmmconfig.NewDisk()
	if err := disk.SetBackingInfo(*vmDisk); err != nil {
		fail("SetBackingInfo: %v", err)
	}
	created, err := vms.CreateDisk(&extId, disk, withEtag())
	finished(tasks, "CreateDisk", created, err)
	current, _ := getVm(vms, extId)
	if len(current.Disks) != 2 || current.Disks[1].ExtId == nil {
		fail("after CreateDisk: expected two disks, the new one with an extId: %+v", current.Disks)
	}
	added := current.Disks[1]
	backing, ok := added.GetBackingInfo().(vmmconfig.VmDisk)
	if !ok {
		fail("the added disk's backingInfo is %T, not VmDisk", added.GetBackingInfo())
	}
	backing.DiskSizeBytes = ptr(int64(2 * 1024 * 1024 * 1024))
	if err := added.SetBackingInfo(backing); err != nil {
		fail("SetBackingInfo: %v", err)
	}
	updated, err := vms.UpdateDiskById(&extId, added.ExtId, &added, withEtag())
	finished(tasks, "UpdateDiskById", updated, err)
	current, _ = getVm(vms, extId)
	if grown, ok := current.Disks[1].GetBackingInfo().(vmmconfig.VmDisk); !ok || grown.DiskSizeBytes == nil || *grown.DiskSizeBytes != 2*1024*1024*1024 {
		fail("after UpdateDiskById: the disk is %+v", current.Disks[1])
	}
	strict(e, "/api/vmm/v4.2/ahv/config/vms/"+extId, vmmconfig.NewGetVmApiResponse())
	step("CreateDisk and UpdateDiskById with the VM's ETag: two disks, the new one grown to 2 GiB")

	network := vmmconfig.NewVirtualEthernetNicNetworkInfo()
	network.Subnet = vmmconfig.NewSubnetReference()
	network.Subnet.ExtId = ptr(e.subnet)
	nic := vmmconfig.NewNic()
	if err := nic.SetNicNetworkInfo(*network); err != nil {
		fail("SetNicNetworkInfo: %v", err)
	}
	createdNic, err := vms.CreateNic(&extId, nic, withEtag())
	finished(tasks, "CreateNic", createdNic, err)
	current, _ = getVm(vms, extId)
	if len(current.Nics) != 2 || current.Nics[1].ExtId == nil {
		fail("after CreateNic: expected two NICs: %+v", current.Nics)
	}
	second := current.Nics[1]
	moved := vmmconfig.NewVirtualEthernetNicNetworkInfo()
	moved.Subnet = vmmconfig.NewSubnetReference()
	moved.Subnet.ExtId = ptr(mustEnv("SIM_OTHER_SUBNET"))
	change := vmmconfig.NewNic()
	if err := change.SetNicNetworkInfo(*moved); err != nil {
		fail("SetNicNetworkInfo: %v", err)
	}
	updatedNic, err := vms.UpdateNicById(&extId, second.ExtId, change, withEtag())
	finished(tasks, "UpdateNicById", updatedNic, err)
	current, _ = getVm(vms, extId)
	if network, ok := current.Nics[1].GetNicNetworkInfo().(vmmconfig.VirtualEthernetNicNetworkInfo); !ok || network.Subnet == nil || *network.Subnet.ExtId != *moved.Subnet.ExtId {
		fail("after UpdateNicById: the NIC is %+v", current.Nics[1])
	}
	deletedNic, err := vms.DeleteNicById(&extId, second.ExtId, withEtag())
	finished(tasks, "DeleteNicById", deletedNic, err)
	if current, _ = getVm(vms, extId); len(current.Nics) != 1 {
		fail("after DeleteNicById: %d NICs", len(current.Nics))
	}
	step("CreateNic, UpdateNicById to another subnet and DeleteNicById with the VM's ETag")
}

// readCategories lists categories with $filter and resolves every category reference of vm through the
// categories API: the extIds a VM carries are those the categories API lists.
func readCategories(categories *prismapi.CategoriesApi, e env, vm vmmconfig.Vm) {
	filter := "key eq 'Environment'"
	listed, err := categories.ListCategories(ptr(0), ptr(50), &filter, ptr("value"), nil, nil)
	if err != nil {
		fail("ListCategories: %v", err)
	}
	checkDecoded("ListCategories", listed)
	items, ok := listed.GetData().([]prismconfig.Category)
	if !ok || len(items) == 0 {
		fail("ListCategories $filter=%s: data is %T %+v", filter, listed.GetData(), listed.GetData())
	}
	byExtId := map[string]prismconfig.Category{}
	for _, category := range items {
		if category.Key == nil || *category.Key != "Environment" || category.ExtId == nil || category.Value == nil {
			fail("ListCategories $filter=%s: %+v", filter, category)
		}
		byExtId[*category.ExtId] = category
	}
	strict(e, "/api/prism/v4.2/config/categories?%24filter="+url.QueryEscape(filter), prismconfig.NewListCategoriesApiResponse())
	step("ListCategories $filter=%q: %d values", filter, len(items))

	var names []string
	for _, reference := range vm.Categories {
		category, ok := byExtId[*reference.ExtId]
		if !ok {
			fail("the VM's category %s is not among the listed ones", *reference.ExtId)
		}
		got, err := categories.GetCategoryById(reference.ExtId, nil)
		if err != nil {
			fail("GetCategoryById %s: %v", *reference.ExtId, err)
		}
		checkDecoded("GetCategoryById", got)
		one, ok := got.GetData().(prismconfig.Category)
		if !ok || *one.Value != *category.Value {
			fail("GetCategoryById %s: %T %+v", *reference.ExtId, got.GetData(), got.GetData())
		}
		strict(e, "/api/prism/v4.2/config/categories/"+*reference.ExtId, prismconfig.NewGetCategoryApiResponse())
		names = append(names, *one.Key+"="+*one.Value)
	}
	step("the VM's categories, read through the categories API: %s", strings.Join(names, ", "))
}

// createAndDeleteCategory creates a key:value pair, as CAPX does for the categories it puts on machines, and deletes it.
func createAndDeleteCategory(categories *prismapi.CategoriesApi) {
	category := prismconfig.NewCategory()
	category.Key = ptr("SdkCheck")
	category.Value = ptr("created")
	category.Description = ptr("made by the official v4 SDK")
	created, err := categories.CreateCategory(category)
	if err != nil {
		fail("CreateCategory: %v", err)
	}
	checkDecoded("CreateCategory", created)
	made, ok := created.GetData().(prismconfig.Category)
	if !ok || made.ExtId == nil || *made.Key != "SdkCheck" || *made.Value != "created" {
		fail("CreateCategory: data is %T %+v", created.GetData(), created.GetData())
	}
	// As CAPX at cluster deletion: read the category for its ETag, then delete it with that ETag in If-Match.
	read, err := categories.GetCategoryById(made.ExtId, nil)
	if err != nil {
		fail("GetCategoryById: %v", err)
	}
	checkDecoded("GetCategoryById", read)
	etag := categories.ApiClient.GetEtag(read)
	if etag == "" {
		fail("GetCategoryById: no ETag")
	}
	if _, err := categories.DeleteCategoryById(made.ExtId); err == nil {
		fail("DeleteCategoryById without If-Match succeeded")
	}
	if _, err := categories.DeleteCategoryById(made.ExtId, map[string]interface{}{"If-Match": ptr(etag)}); err != nil {
		fail("DeleteCategoryById: %v", err)
	}
	if _, err := categories.GetCategoryById(made.ExtId, nil); err == nil {
		fail("GetCategoryById after DeleteCategoryById succeeded")
	}
	step("CreateCategory SdkCheck=created, GetCategoryById with its ETag, DeleteCategoryById refused without If-Match, then with it: gone")
}
