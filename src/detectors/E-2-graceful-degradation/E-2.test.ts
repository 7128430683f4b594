import detectors from './index.js';
import dynamicPart from './dynamic.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';

// The live fixtures (probe.json: the extension under mcp-doctor's host) belong to the dynamic part.
testDetectorFolder('E-2', detectors, import.meta.url, { skipServerFixtures: true });
testDetectorFolder('E-2', [dynamicPart], import.meta.url);
