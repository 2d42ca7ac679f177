// How the writer stitches Image references into the graph (the joins themselves: image-identity.ts): a
// reference node lands on the scanned image it resolves to, or stays pending under its own id; a scan that
// arrives later takes in the references that were waiting for it, their edges and their properties.
import { parseImageRef } from '../identity/image-ref.js';
import {
  IMAGE_IDENTITY_PROPS,
  inPlaceMethod,
  JOIN_CONFIDENCE,
  RESOLUTION_PENDING,
  RESOLVE_REF,
  type ImageIdentity,
  type ResolutionMethod,
} from './image-identity.js';
import type { EdgeAttributes } from './model.js';
import { moveEdges, type WriterEdits } from './writer-edits.js';

/** How a reference node of the envelope being applied was resolved: the stitched edges' join confidence. */
export type Stitch = number | 'pending';

export class ImageStitching {
  constructor(
    private readonly edits: WriterEdits,
    private readonly images: ImageIdentity,
  ) {}

  /** Where an Image reference lands (see image-identity.ts), with the properties it brings. */
  resolveReference(
    id: string,
    reference: string,
    incoming: Record<string, unknown>,
  ): { id: string; props: Record<string, unknown>; stitch: Stitch } {
    const props = { ...incoming };
    delete props[RESOLVE_REF];
    const ref = parseImageRef(reference);
    if (!ref) return { id, props, stitch: 1 };
    const join = this.images.resolve(ref, id);
    if (!join) {
      if (!this.edits.graph.hasNode(id) || this.images.isPending(id)) {
        props[RESOLUTION_PENDING] = reference;
        this.images.notePending(id, ref);
      }
      return { id, props, stitch: 'pending' };
    }
    // The scan's own description of the image wins over what a reference says about it.
    for (const key of IMAGE_IDENTITY_PROPS) delete props[key];
    props.resolution_method = join.method;
    props.resolution_confidence = join.confidence;
    props.resolution_alias = reference;
    return { id: join.id, props, stitch: join.confidence };
  }

  /** Indexes a scanned image and joins the references that were waiting for it by digest or bare name. */
  noteScannedImage(id: string): void {
    for (const pending of this.images.noteScanned(id, this.edits.graph.getNodeAttributes(id)))
      this.mergePending(pending.id, id, pending.method);
  }

  /** A pending reference under the scanned image's own id joins by tag, or by the digest it pins. */
  joinPendingInPlace(id: string): void {
    const { graph, changes } = this.edits;
    const attrs = graph.getNodeAttributes(id);
    const alias = attrs.props[RESOLUTION_PENDING];
    delete attrs.props[RESOLUTION_PENDING];
    const method = inPlaceMethod(alias, attrs);
    const confidence = JOIN_CONFIDENCE[method];
    Object.assign(attrs.props, {
      resolution_method: method,
      resolution_confidence: confidence,
      resolution_alias: alias,
    });
    const settle = (key: string, edge: EdgeAttributes, source: string, target: string) => {
      if (!edge.joinPending) return;
      delete edge.joinPending;
      if (confidence < 1) edge.joinConfidence = confidence;
      else delete edge.joinConfidence;
      graph.replaceEdgeAttributes(key, edge);
      changes.edgeChanged(edge.type, source, target);
    };
    graph.forEachInEdge(id, settle);
    graph.forEachOutEdge(id, settle);
    changes.nodeChanged(id);
    this.edits.bump();
  }

  /** Moves a pending reference node's edges and properties onto the image it resolved to, then drops it. */
  private mergePending(pendingId: string, imageId: string, method: ResolutionMethod): void {
    const graph = this.edits.graph;
    const pending = graph.getNodeAttributes(pendingId);
    const image = graph.getNodeAttributes(imageId);
    const props = { ...pending.props };
    const alias = props[RESOLUTION_PENDING];
    delete props[RESOLUTION_PENDING];
    for (const key of IMAGE_IDENTITY_PROPS) delete props[key];
    image.props = {
      ...image.props,
      ...props,
      resolution_method: method,
      resolution_confidence: JOIN_CONFIDENCE[method],
      resolution_alias: alias,
    };
    this.edits.changes.nodeChanged(imageId);
    moveEdges(this.edits, pendingId, imageId, (moved) => {
      if (moved.joinPending) {
        delete moved.joinPending;
        moved.joinConfidence = JOIN_CONFIDENCE[method];
      }
    });
  }
}
